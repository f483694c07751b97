import type {
	IDataObject,
	IExecuteFunctions,
	IHttpRequestMethods,
	INode,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

import type { CredentialName } from '../shared/credentials';
import type { ApiRequest, Family, Transport } from '../shared/transport/request';
import type { MoneySpec } from '../shared/money';
import { Validator, type IdRule, type WarningSink } from '../shared/validate';
import { valueAt } from '../shared/paths';

/** What stays the same for every item of a run, read once: the node (n8n copies it on every read) and the input. */
export interface RunInput {
	node: INode;
	items: INodeExecutionData[];
}

/** `={{ $json.a }}` or `={{ $json.a.b }}` exactly: a reference to a field of the item, the commonest expression. */
const FIELD_REFERENCE = /^=\{\{\s*\$json((?:\.[A-Za-z_$][\w$]*)+)\s*\}\}$/;

/**
 * A stored parameter value that cannot hold an expression: an empty collection (a fresh copy), a
 * number or a boolean. n8n's read gives the same value; this skips the copy, resolution and checks
 * n8n makes for every item. Anything else is undefined and goes to n8n.
 */
function plainValue(raw: unknown): unknown {
	if (typeof raw === 'number' || typeof raw === 'boolean') return raw;
	if (raw !== null && typeof raw === 'object' && !Array.isArray(raw) && Object.keys(raw).length === 0) return {};
	return undefined;
}

/**
 * Reads one item's parameters (resource locators give their value) and
 * validates them with messages that name the field.
 */
export class Params {
	readonly v: Validator;
	private readonly run: RunInput | undefined;

	constructor(
		readonly ctx: IExecuteFunctions,
		readonly itemIndex: number,
		warnings?: WarningSink,
		run?: RunInput,
	) {
		this.run = run;
		this.v = new Validator(run?.node ?? ctx.getNode(), itemIndex, warnings);
	}

	get<T = unknown>(name: string, fallback?: T): T {
		if (this.run !== undefined && !name.includes('.')) {
			// A top-level parameter as the workflow stored it: some values are read without n8n.
			const raw = Object.prototype.hasOwnProperty.call(this.run.node.parameters, name) ? this.run.node.parameters[name] : undefined;
			const value = this.fieldReference(raw) ?? plainValue(raw);
			if (value !== undefined) return value as T;
		}
		return this.ctx.getNodeParameter(name, this.itemIndex, fallback as never, {
			extractValue: true,
		}) as T;
	}

	/** A parameter (a dot path) as the workflow stored it, before n8n resolves it; undefined if the node has none. */
	stored(path: string): unknown {
		return valueAt((this.run?.node ?? this.ctx.getNode()).parameters, path);
	}

	/**
	 * A parameter that is exactly `={{ $json.field }}` (as text, or as the ID of a resource locator)
	 * and names a text, number or boolean of the item: that value, read from the item as n8n's
	 * expression would return it, without starting the expression engine for every item. Anything
	 * else (another expression, a missing field, an object) is undefined and goes to n8n.
	 */
	private fieldReference(stored: unknown): unknown {
		if (this.run === undefined) return undefined;
		let raw = stored;
		if (raw !== null && typeof raw === 'object') {
			const locator = raw as { __rl?: unknown; mode?: unknown; value?: unknown };
			if (locator.__rl !== true || (locator.mode !== 'id' && locator.mode !== 'list')) return undefined;
			raw = locator.value;
		}
		if (typeof raw !== 'string') return undefined;
		const match = FIELD_REFERENCE.exec(raw);
		if (!match) return undefined;
		const value = valueAt(this.run.items[this.itemIndex]?.json, match[1].slice(1), true);
		return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? value : undefined;
	}

	/** A collection parameter (additionalFields, updateFields, filters, options). */
	fields(name: string): IDataObject {
		return this.get<IDataObject>(name, {}) ?? {};
	}

	/** A path id (see Validator.id). */
	id(name: string, rule: IdRule): string {
		return this.v.id(rule, this.get(name, ''), 'path');
	}

	get item(): INodeExecutionData {
		return this.ctx.getInputData()[this.itemIndex];
	}
}

export interface RunContext {
	ctx: IExecuteFunctions;
	p: Params;
	transport: Transport;
	/** The request the row describes, with ids filled, query and body built. */
	request: ApiRequest;
	concurrency: number;
}

export interface Operation {
	/** Parameter value (fixed: workflows depend on it). */
	value: string;
	name: string;
	action: string;
	description: string;
	method: IHttpRequestMethods;
	family: Family;
	/** Path below the family root; `{param}` is filled from the id parameter of that name. */
	path: string;
	ids?: Record<string, IdRule>;
	query?: (p: Params) => IDataObject | undefined;
	body?: (p: Params) => IDataObject | IDataObject[] | undefined;
	/** Body keys whose null value is sent as JSON null (empty values are dropped otherwise). */
	sendNull?: string[];
	/**
	 * `paged`: page/limit walking; `client`: one request, Limit applied here;
	 * `cursor`: follows the continuation the answer carries (vault lists).
	 */
	list?: 'paged' | 'client' | 'cursor';
	/** For `list: 'cursor'`: the query name that carries the next cursor (a parameter may override it). */
	cursorParam?: string;
	/**
	 * Every operation has "Additional Query Parameters", and every one that
	 * sends a body (POST, PUT, PATCH) "Additional Body Fields": name and value
	 * pairs merged over the node's own, so a name the service spells otherwise
	 * can be corrected from the editor. A row turns one off only with the reason.
	 */
	noExtra?: { query?: string; body?: string };
	/**
	 * The body, once Additional Body Fields are merged, must have a field
	 * besides the `besides` ones (an update with nothing to change): else
	 * `message` is the error.
	 */
	needsBody?: { message: string; besides?: string[] };
	/**
	 * Query or body names the node guessed whose value the answer's records
	 * carry under the same name (a filter, a test event type): when records
	 * come back with another value, the service plainly ignored the name, and
	 * the node says so in an execution hint.
	 */
	guessedNames?: {
		query?: string[];
		body?: string[];
		/** A text filter sent under a guessed query name: the record fields it matches (dotted paths). */
		text?: { name: string; fields: string[] };
		/**
		 * A sort sent under guessed query names: the field name (`by`, or the fixed field `field`)
		 * and the direction name (`asc`/`desc`) whose order the records must come in.
		 */
		sort?: { by?: string; field?: string; direction: string };
	};
	/** Sends an Idempotency-Key: `required` by the spec, or `honoured` by the route. */
	idempotent?: 'required' | 'honoured';
	/** The spec names the operation but not its path or body. */
	inferred?: boolean;
	/** A word for the README table, e.g. which part of the request is inferred. */
	notes?: string;
	/** Scope or permission the spec names for this route. */
	scope?: string;
	hints?: ApiRequest['hints'];
	/** Special cases (downloads, batching): the row points at a small function. */
	run?: (rc: RunContext) => Promise<INodeExecutionData[]>;
	/** Reshapes the unwrapped records before they become items. */
	output?: (records: IDataObject[], p: Params) => IDataObject[];
	/**
	 * Fields of the records this row's route answers with that are secrets (a product's
	 * webhookSecret, PRODUCT_SECRET_FIELDS of shared/redaction/hidden.ts, which the trigger reads
	 * too): the output gate leaves them out at any depth of every answer on every path (this row,
	 * a record embedding one, a list, a Custom API Call with either credential, an agent's call)
	 * and out of errors, their values redacted in error text.
	 */
	hides?: readonly string[];
	/**
	 * The output carries revealed data on purpose (token Reveal). Success items of every other
	 * operation with the vault credential pass through the token allow-list (shared/redaction/gate.ts).
	 */
	revealsData?: true;
	/**
	 * The operation's own parameters. Their resource/operation display options
	 * are derived from where the row sits (never typed); a field may add other
	 * conditions (e.g. `show: { returnAll: [false] }`).
	 */
	fields?: INodeProperties[];
	/**
	 * Limits when an AI agent runs the node as a tool: `refuse` keeps the
	 * operation away from agents (the text says why); `confirm` keeps it away
	 * unless the node's "Allow Agent Writes" option is on (the text says what
	 * an agent could do with it).
	 */
	agent?: { refuse?: string; confirm?: string };
	/**
	 * The operation can charge an amount its request does not state (the text says how): under a
	 * Maximum Amount it is refused before anything is sent, as the node cannot hold it to the cap.
	 */
	charges?: string;
	/** The row sends to any route the user gives (Custom API Call): it declares none. */
	anyRoute?: true;
	/**
	 * The operation moves money. From this one declaration the executor derives
	 * the Maximum Amount check on the request as it will be sent, the read-back
	 * of what the service recorded, and the once-per-event record.
	 */
	money?: MoneySpec & {
		/** The parameter (dot path below the node's parameters) that carries the amount, e.g. `additionalFields.amount`. */
		amountParameter?: string;
	};
}

export interface Resource {
	value: string;
	name: string;
	description: string;
	credential: CredentialName;
	/** The credential is chosen by a parameter (value -> credential); `credential` is the default. */
	credentialChoice?: { parameter: string; credentials: Record<string, CredentialName> };
	/** In menu order (alphabetical). The editor opens the resource on its first GET operation. */
	operations: Operation[];
	/** For a resource without a GET operation: the one to open on (never one that changes data or moves money). */
	defaultOperation?: string;
	/** Parameters besides password fields whose values must not appear in errors (e.g. token data). */
	secretParameters?: string[];
}

const BODY_METHODS: readonly string[] = ['PATCH', 'POST', 'PUT'];

/** Whether the operation offers Additional Query Parameters / Additional Body Fields (see `noExtra`). */
export function extrasOf(op: Operation): { query: boolean; body: boolean } {
	return {
		query: op.noExtra?.query === undefined,
		body: BODY_METHODS.includes(op.method) && op.noExtra?.body === undefined,
	};
}

/** The credential a run of the resource uses: the one its choice parameter names, else its own. */
export function credentialOf(resource: Resource, ctx: IExecuteFunctions): CredentialName {
	const choice = resource.credentialChoice;
	if (!choice) return resource.credential;
	const value = ctx.getNodeParameter(choice.parameter, 0, '') as string;
	return choice.credentials[value] ?? resource.credential;
}

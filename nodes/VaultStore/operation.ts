import type {
	IDataObject,
	IExecuteFunctions,
	IHttpRequestMethods,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

import type { CredentialName } from '../shared/credentials';
import type { ApiRequest, Family, Transport } from '../shared/transport/request';
import type { IdRule } from '../shared/validate';
import { Validator } from '../shared/validate';

/**
 * Reads one item's parameters (resource locators give their value) and
 * validates them with messages that name the field.
 */
export class Params {
	readonly v: Validator;

	constructor(
		readonly ctx: IExecuteFunctions,
		readonly itemIndex: number,
	) {
		this.v = new Validator(ctx.getNode(), itemIndex);
	}

	get<T = unknown>(name: string, fallback?: T): T {
		return this.ctx.getNodeParameter(name, this.itemIndex, fallback as never, {
			extractValue: true,
		}) as T;
	}

	/** A collection parameter (additionalFields, updateFields, filters, options). */
	fields(name: string): IDataObject {
		return this.get<IDataObject>(name, {}) ?? {};
	}

	id(name: string, rule: IdRule): string {
		return this.v.id(rule, this.get(name, ''));
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
	 * The service's query or body names here are a guess: the operation gets
	 * "Additional Query Parameters" / "Additional Body Fields" (name and value
	 * pairs sent as they are, overriding the node's own).
	 */
	extra?: { query?: boolean; body?: boolean };
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
	 * The output carries revealed data on purpose (token Reveal). Success items of every other
	 * operation with the vault credential pass through the token allow-list (outputGuard.ts).
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
	 * operation away from agents (the text says why); `amount` reads the amount
	 * the call would move, checked against the required Maximum Amount option
	 * (undefined = not known before the request, refused).
	 */
	agent?: { refuse?: string; amount?: (p: Params) => number | undefined };
}

export interface Resource {
	value: string;
	name: string;
	description: string;
	credential: CredentialName;
	/** In menu order (alphabetical). The editor opens the resource on its first GET operation. */
	operations: Operation[];
	/** For a resource without a GET operation: the one to open on (never one that changes data or moves money). */
	defaultOperation?: string;
	/** Parameters besides password fields whose values must not appear in errors (e.g. token data). */
	secretParameters?: string[];
}

/** A typed-in amount as a number, or undefined when not given or not a number. */
export function amountOf(value: unknown): number | undefined {
	const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	return typeof n === 'number' && Number.isFinite(n) ? n : undefined;
}

import type { IDataObject } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { ApiRequest } from '../shared/transport/request';
import { withoutEmptyValues } from '../shared/validate';
import { applyExtras } from './extras';
import type { Operation, Params } from './operation';

/** `{orderId}` in a path becomes the validated, encoded id parameter of that name. */
function fillPath(op: Operation, p: Params): string {
	return op.path.replace(/\{(\w+)\}/g, (_, name: string) => {
		const rule = op.ids?.[name];
		if (!rule) throw new NodeOperationError(p.ctx.getNode(), `No id rule for {${name}} in ${op.path}`);
		return encodeURIComponent(p.id(name, rule));
	});
}

/** An Amount field the user set must give the request an amount: never a silent full refund. */
function checkAmountGiven(op: Operation, p: Params, request: ApiRequest): void {
	const money = op.money;
	if (!money?.amount || !money.amountParameter) return;
	const raw = p.stored(money.amountParameter);
	if (raw === undefined || raw === null || raw === '') return;
	const body = request.body as IDataObject | undefined;
	const sent = body && !Array.isArray(body) ? body[money.amount] : undefined;
	if (sent === undefined || sent === null || sent === '') {
		p.v.fail(
			'"Amount" is set but has no value for this item, so nothing was sent',
			`An expression that resolves to nothing would otherwise send no amount${money.withoutAmount ? `, which is ${money.withoutAmount}` : ''}. Check the expression, or remove the field${money.withoutAmount ? ` for ${money.withoutAmount}` : ''}.`,
		);
	}
}

/** The request an operation row describes for one item: ids filled, query and body built, extras merged. */
export function buildRequest(op: Operation, p: Params): ApiRequest {
	const request: ApiRequest = {
		family: op.family,
		method: op.method,
		path: fillPath(op, p),
		inferred: op.inferred,
		hints: op.hints,
		itemIndex: p.itemIndex,
		idempotent: op.idempotent !== undefined,
	};
	const query = op.query?.(p);
	if (query) request.query = withoutEmptyValues(query);
	const body = op.body?.(p);
	if (body !== undefined) request.body = Array.isArray(body) ? body : withoutEmptyValues(body, op.sendNull);
	applyExtras(op, p, request);
	checkAmountGiven(op, p, request);
	return request;
}

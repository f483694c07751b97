import type { IDataObject, IHookFunctions } from 'n8n-workflow';

/** What the trigger's webhook-method log lines carry: the workflow and the node. */
export function logContext(ctx: IHookFunctions): IDataObject {
	return { workflowId: ctx.getWorkflow().id, node: ctx.getNode().name };
}

/** The HTTP status of a transport error, as text ('404'), or undefined when there was no answer. */
export function httpCodeOf(error: unknown): string | undefined {
	const code = (error as { httpCode?: unknown } | null)?.httpCode;
	return typeof code === 'string' ? code : undefined;
}

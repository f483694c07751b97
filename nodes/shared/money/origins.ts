import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { deliveryIdOf, isTriggerType } from '../events';
import type { EventOrigin } from './keys';

export interface Origins {
	/** Enabled Vault Store Triggers upstream of the node. */
	triggers: string[];
	/** For each input item, the delivery it descends from (through n8n's paired items). */
	of: (EventOrigin | undefined)[];
}

/**
 * For each input item, the Vault Store Trigger delivery it descends from; undefined for items
 * that do not descend from one, or whose pairing was lost on the way (see `triggers`).
 */
export function eventOrigins(ctx: IExecuteFunctions, count: number): Origins {
	const of: (EventOrigin | undefined)[] = new Array(count).fill(undefined);
	let triggers: string[] = [];
	try {
		triggers = ctx
			.getParentNodes(ctx.getNode().name)
			.filter((node) => isTriggerType(node.type) && !node.disabled)
			.map((node) => node.name);
	} catch {
		return { triggers, of };
	}
	for (let i = 0; i < count && triggers.length > 0; i++) {
		for (const name of triggers) {
			let eventId: string | undefined;
			try {
				const proxy = ctx.getWorkflowDataProxy(i) as unknown as { $: (node: string) => { item?: INodeExecutionData } };
				eventId = deliveryIdOf(proxy.$(name).item?.json as IDataObject | undefined);
			} catch {
				eventId = undefined;
			}
			if (eventId !== undefined) {
				of[i] = { eventId };
				break;
			}
		}
	}
	return { triggers, of };
}

import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { carriedDeliveryId, deliveryIdOf, isTriggerType } from '../events';
import type { EventOrigin } from './keys';

type NodeProxy = { $: (node: string) => { item?: INodeExecutionData; all?: () => INodeExecutionData[] } };

export interface Origins {
	/** Enabled Vault Store Triggers upstream of the node. */
	triggers: string[];
	/** For each input item, the delivery it descends from (through n8n's paired items). */
	of: (EventOrigin | undefined)[];
}

/**
 * For each input item, the Vault Store Trigger delivery it descends from (through n8n's paired
 * items, else the one delivery the trigger output in this execution, else the delivery the item
 * itself carries in the trigger's shape: a sub-workflow, a node that kept the fields); undefined
 * for items that do not descend from one, or whose pairing was lost where the trigger output
 * several and the item does not carry it (see `triggers`).
 */
export function eventOrigins(ctx: IExecuteFunctions, count: number): Origins {
	const origins = triggerOrigins(ctx, count);
	let input: Array<{ json?: IDataObject }> = [];
	try {
		input = ctx.getInputData();
	} catch {
		input = [];
	}
	for (let i = 0; i < count; i++) {
		if (origins.of[i] !== undefined) continue;
		const carried = carriedDeliveryId(input[i]?.json);
		if (carried !== undefined) origins.of[i] = { eventId: carried };
	}
	return origins;
}

function triggerOrigins(ctx: IExecuteFunctions, count: number): Origins {
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
	/** The delivery of a trigger that output exactly one item in this execution (as a delivery does). */
	const only = new Map<string, string | undefined>();
	const onlyDelivery = (name: string): string | undefined => {
		if (!only.has(name)) {
			let id: string | undefined;
			try {
				const proxy = ctx.getWorkflowDataProxy(0) as unknown as NodeProxy;
				const all = proxy.$(name).all?.() ?? [];
				id = all.length === 1 ? deliveryIdOf(all[0].json as IDataObject) : undefined;
			} catch {
				id = undefined;
			}
			only.set(name, id);
		}
		return only.get(name);
	};
	for (let i = 0; i < count && triggers.length > 0; i++) {
		for (const name of triggers) {
			let eventId: string | undefined;
			try {
				const proxy = ctx.getWorkflowDataProxy(i) as unknown as NodeProxy;
				eventId = deliveryIdOf(proxy.$(name).item?.json as IDataObject | undefined);
			} catch {
				// The pairing was lost on the way: when the trigger output one delivery in this
				// execution, every item descends from it.
				eventId = onlyDelivery(name);
			}
			if (eventId !== undefined) {
				of[i] = { eventId };
				break;
			}
		}
	}
	return { triggers, of };
}

/**
 * Mandates (billing agreements).
 *   POST /v2/core/stores/:storeId/mandates  {customerId (cus_, an existing customer), description (text),
 *        frequency (ONE_OFF|WEEKLY|MONTHLY|QUARTERLY|YEARLY|AD_HOC, the spec's list)}; the spec does not say
 *        which fields are required: customerId is (the customer must exist beforehand), description and
 *        frequency are optional here; unknown fields 400, unknown customer 404.
 *        201 {id, status: REQUIRES_ACTION, agreementUrl}.
 * The id prefix mdt_ and the agreementUrl host are our choice.
 * Collection 'mandates' (starts empty).
 */
import { core, notFound, ok, SandboxApp, v } from '../app';

export const FREQUENCIES = ['ONE_OFF', 'WEEKLY', 'MONTHLY', 'QUARTERLY', 'YEARLY', 'AD_HOC'] as const;

export interface MandateRecord {
	id: string;
	status: 'REQUIRES_ACTION' | 'ACTIVE';
	agreementUrl: string;
	customerId: string;
	description: string | null;
	frequency: (typeof FREQUENCIES)[number] | null;
	createdAt: string;
}

export function register(app: SandboxApp): void {
	app.route('POST', core('/mandates'), (ctx) => {
		const b = ctx.body;
		v.onlyFields(b, ['customerId', 'description', 'frequency']);
		const customerId = v.id(b.customerId, 'customerId', 'cus_', { required: true }) as string;
		const description = v.str(b.description, 'description') ?? null;
		const frequency = v.oneOf(b.frequency, 'frequency', FREQUENCIES) ?? null;
		if (!ctx.state.customers.some((c) => c.id === customerId)) throw notFound('Customer');
		const id = ctx.app.newId('mdt_');
		const mandate: MandateRecord = {
			id,
			status: 'REQUIRES_ACTION',
			agreementUrl: `https://pay.sandbox-supply.example/mandates/${id}/authorize`,
			customerId,
			description,
			frequency,
			createdAt: ctx.iso(),
		};
		app.collection<MandateRecord>('mandates').push(mandate);
		return ok({ id: mandate.id, status: mandate.status, agreementUrl: mandate.agreementUrl }, 201);
	});
}

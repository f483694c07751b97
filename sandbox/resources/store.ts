/** GET /v2/core/stores/:storeId — the store itself (response shape not given by the spec). */
import { core, ok, SandboxApp } from '../app';

export function register(app: SandboxApp): void {
	app.route('GET', core(), (ctx) => {
		const s = ctx.state.store;
		return ok({ id: s.id, name: s.name, handle: s.handle, currency: s.currency, country: s.country, supportEmail: s.supportEmail, createdAt: s.createdAt, updatedAt: s.updatedAt });
	});
}

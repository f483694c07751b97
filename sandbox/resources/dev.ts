/**
 * Development routes (no auth, loopback callers only), handy when the CLI sandbox runs beside n8n:
 *   POST /__dev/events         {eventType, data}  deliver an event to every subscribed endpoint
 *   POST /__dev/clock/advance  {ms}               move the sandbox clock forward
 */
import { ok, SandboxApp, v } from '../app';
import { WEBHOOK_EVENTS } from '../deliveries';

const opts = { auth: 'none', loopbackOnly: true } as const;

export function register(app: SandboxApp): void {
	app.route('POST', '/__dev/events', (ctx) => {
		const eventType = v.oneOf(ctx.body.eventType, 'eventType', WEBHOOK_EVENTS, { required: true })!;
		const messageIds = app.emit(eventType, ctx.body.data ?? {});
		return ok({ eventType, messageIds }, 202);
	}, opts);

	app.route('POST', '/__dev/clock/advance', (ctx) => {
		app.clock.advance(v.int(ctx.body.ms, 'ms', { required: true, min: 0 })!);
		return ok({ now: app.clock.iso() });
	}, opts);
}

// @ts-check
/**
 * Test-only preload that moves a process's wall clock: `Date.now()` and `new Date()` (no
 * arguments) run VS_E2E_CLOCK_SHIFT_MS milliseconds ahead (negative: behind). n8n is started with
 * it through NODE_OPTIONS=--require (clockShiftEnv in instance.js), so an end-to-end scenario can
 * let a day pass for n8n as well as for the sandbox, whose clock moves with `sb.app.clock.advance`.
 * Nothing changes when the variable is unset, empty, 0 or not a number. Timers and
 * performance.now() are not touched (they measure durations, not the date).
 */
'use strict';

const shift = Number(process.env.VS_E2E_CLOCK_SHIFT_MS || 0);
if (Number.isFinite(shift) && shift !== 0) {
	const RealDate = Date;
	const realNow = RealDate.now;
	const now = () => realNow() + shift;
	// A proxy keeps everything else of Date as it is (prototype, parse, UTC, instanceof, subclasses).
	globalThis.Date = new Proxy(RealDate, {
		construct(target, args, newTarget) {
			return Reflect.construct(target, args.length === 0 ? [now()] : args, newTarget);
		},
		// Date() called without new: the current date as a string.
		apply() {
			return new RealDate(now()).toString();
		},
		get(target, prop, receiver) {
			return prop === 'now' ? now : Reflect.get(target, prop, receiver);
		},
	});
}

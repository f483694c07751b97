// @ts-check
/**
 * A tiny check recorder for the end-to-end suite: named checks grouped in phases, a summary table
 * at the end, exit code 1 when anything failed. No test framework: the suite orchestrates real
 * processes and reads more naturally as a script.
 */
'use strict';

const { log } = require('./lib');

class Results {
	constructor() {
		/** @type {{phase: string, name: string, ok: boolean, detail?: string, ms?: number}[]} */
		this.results = [];
		this.phase = '';
		/** @type {{phase: string, ms: number, ok: boolean, skipped?: string}[]} */
		this.phases = [];
		/** Shown in the summary's heading (the n8n and Node the run used). */
		this.title = '';
	}

	/** Records one assertion; never throws. Returns the condition. */
	check(name, ok, detail) {
		const pass = Boolean(ok);
		this.results.push({ phase: this.phase, name, ok: pass, detail: pass ? undefined : String(detail ?? '') });
		log(`${pass ? 'ok  ' : 'FAIL'} ${name}${pass || !detail ? '' : `\n       ${String(detail).split('\n').join('\n       ')}`}`);
		return pass;
	}

	/** Equality check with both values in the failure message. */
	equal(name, actual, expected) {
		const a = JSON.stringify(actual);
		const e = JSON.stringify(expected);
		return this.check(name, a === e, `expected ${e}, got ${a}`);
	}

	/** Like check, but throws when it fails (for preconditions the rest of a phase needs). */
	must(name, ok, detail) {
		if (!this.check(name, ok, detail)) throw new Error(`precondition failed: ${name}`);
	}

	/** Runs a phase; an exception is recorded as a failed check and the suite goes on. */
	async runPhase(phase, fn) {
		this.phase = phase;
		log(`--- ${phase}`);
		const t = Date.now();
		let ok = true;
		try {
			await fn();
		} catch (err) {
			ok = false;
			const e = /** @type {Error} */ (err);
			this.check(`${phase}: completed without an exception`, false, e.stack ?? e.message);
		}
		const failed = this.results.some((r) => r.phase === phase && !r.ok);
		this.phases.push({ phase, ms: Date.now() - t, ok: ok && !failed });
	}

	skipPhase(phase, reason) {
		log(`--- ${phase}: SKIPPED (${reason})`);
		this.phases.push({ phase, ms: 0, ok: true, skipped: reason });
	}

	get failed() {
		return this.results.filter((r) => !r.ok);
	}

	summary() {
		const lines = ['', `=== end-to-end summary${this.title ? ` (${this.title})` : ''}`];
		for (const p of this.phases) {
			const inPhase = this.results.filter((r) => r.phase === p.phase);
			const passed = inPhase.filter((r) => r.ok).length;
			const status = p.skipped ? `SKIPPED: ${p.skipped}` : `${passed}/${inPhase.length} checks passed${p.ok ? '' : '  <-- FAILED'}`;
			lines.push(`  ${p.phase.padEnd(34)} ${(p.ms / 1000).toFixed(1).padStart(6)} s  ${status}`);
		}
		const failed = this.failed;
		if (failed.length) {
			lines.push('', `  ${failed.length} failed:`);
			for (const f of failed) lines.push(`   - [${f.phase}] ${f.name}${f.detail ? `: ${f.detail.split('\n')[0]}` : ''}`);
		}
		lines.push(`  total: ${this.results.length} checks, ${this.results.length - failed.length} passed, ${failed.length} failed`);
		return lines.join('\n');
	}
}

module.exports = { Results };

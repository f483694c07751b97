import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { DEDUP, notInitialised, oneAtATime, rowOf } from './recordStore';

/**
 * Spending budgets over many money writes of one node, per currency: a total per execution (every
 * item of every run of the node in one execution, so every tool call of one agent run) and a total
 * per calendar day in the workflow's time zone (across executions and queue-mode workers).
 *
 * What counts: what a write the request gate admitted moves (its own amount; Pay: the total read
 * first), counted when it is admitted, before it is sent. A write whose outcome is unknown stays
 * counted; a write that provably did not happen (refused, a 4xx, a 503, a connection refused) gives
 * its amount back; a write skipped as already made (once per event) counts nothing.
 *
 * Per execution: exact, in n8n's per-execution node context (shared by every run of the node in
 * the execution, both agent routes included); admission checks and adds in one synchronous step.
 *
 * Per day, where n8n's deduplication store is there: the day's budget is cut into UNITS equal
 * units, and a write claims the units it needs (its amount over a unit, rounded up: a write counts
 * at least one unit) in the node's row of that store, which every worker reads. The store tests
 * membership and cannot add, so a unit is a value `budget|<day>|<currency>|<budget>|<n>`; a write
 * claims the lowest units it finds free (checkProcessedAndRecord records the free ones and names the
 * taken ones) until it has enough, or gives back what it took and is refused when the day has no
 * more. The store's read-modify-write has no lock, and every call writes the whole row back: two
 * workers that claim within the same round trip can both take the same units, and a call of one
 * worker (a claim, or the once-per-event record's calls on the same row) that read the row before
 * another worker's claim was written drops that claim from the row, so its units look free again.
 * Each process remembers the units it handed out today (HANDED_OUT): it never hands them out again
 * when the store lost them, and puts them back in the store with its next claim. So each unit is
 * counted at most once per process: the day moves at most the budget times the processes (workers)
 * that run the node, and in practice a few writes over it (docs/queue-mode.md, measured in queue
 * mode by test/e2e/queue/run.js). In one n8n process the count is exact. Without the store (older n8n,
 * n8n-core alone), the day's total is kept exactly in the node's static data, which overlapping
 * executions may overwrite (n8n saves it whole at the end of an execution).
 */

/** Units a day's budget is cut into (per currency): a write counts at least 1/UNITS of it. */
export const UNITS = 500;
/** Field of the per-execution totals in n8n's per-execution node context. */
const EXECUTION_FIELD = 'vaultStoreSpent';
/** Field of the day totals (static-data fallback) and of the next free unit (hint) in static data. */
const DAY_FIELD = 'vaultStoreSpentToday';

export interface BudgetRules {
	perExecution?: number;
	perDay?: number;
}

/** What a write holds of each budget until it is settled. */
export interface Reservation {
	currency: string;
	amount: number;
	/** The budgets it was held under. */
	rules: BudgetRules;
	execution: boolean;
	/** The day's units this write claimed (store), or the day's key (static data). */
	day?: { key: string; units?: string[] };
	/** What is left after this write, for the output. */
	left: { execution?: number; today?: number };
}

/**
 * The day's units this process handed out and did not take back, per node row and day key
 * (`<day>|<currency>|<budget>`): kept for the day (other days go when the row is next used).
 */
const HANDED_OUT = new Map<string, Map<string, Set<number>>>();

function handedOut(row: string, key: string, day: string): Set<number> {
	let days = HANDED_OUT.get(row);
	if (days === undefined) {
		days = new Map();
		HANDED_OUT.set(row, days);
	}
	for (const k of days.keys()) if (!k.startsWith(`${day}|`)) days.delete(k);
	let units = days.get(key);
	if (units === undefined) {
		units = new Set();
		days.set(key, units);
	}
	return units;
}

/** A refusal: the budget, what was spent, what is left. */
export class BudgetExceeded extends Error {}

const round = (n: number) => Math.round(n * 1e6) / 1e6;

/** The calendar day of `at` in the time zone (YYYY-MM-DD). */
export function dayIn(timeZone: string, at: number): string {
	try {
		return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(at);
	} catch {
		return new Date(at).toISOString().slice(0, 10);
	}
}

/** How a currency is named in messages: a write that does not state one counts with the others that do not. */
export function currencyLabel(currency: string): string {
	return currency === '' ? '(currency not stated in the request)' : currency;
}

export class Budgets {
	private helpers: boolean;

	constructor(
		private readonly ctx: IExecuteFunctions,
		private readonly now: () => number,
	) {
		const h = ctx.helpers as Partial<IExecuteFunctions['helpers']>;
		this.helpers = typeof h?.checkProcessedAndRecord === 'function' && typeof h.removeProcessed === 'function';
	}

	private spentInExecution(): Record<string, number> {
		const context = this.ctx.getContext('node') as IDataObject;
		const saved = context[EXECUTION_FIELD];
		if (saved !== null && typeof saved === 'object' && !Array.isArray(saved)) return saved as unknown as Record<string, number>;
		const fresh: Record<string, number> = {};
		context[EXECUTION_FIELD] = fresh as unknown as IDataObject;
		return fresh;
	}

	private staticDay(): Record<string, number> {
		const data = this.ctx.getWorkflowStaticData('node');
		const saved = data[DAY_FIELD];
		if (saved !== null && typeof saved === 'object' && !Array.isArray(saved)) return saved as unknown as Record<string, number>;
		const fresh: Record<string, number> = {};
		data[DAY_FIELD] = fresh as unknown as IDataObject;
		return fresh;
	}

	/**
	 * Holds `amount` of each budget set for the write, or throws BudgetExceeded naming the budget,
	 * what was spent and what is left (nothing is held then).
	 */
	async reserve(rules: BudgetRules, amount: number, currencyIn: string | undefined): Promise<Reservation> {
		const currency = (currencyIn ?? '').toUpperCase();
		const label = currencyLabel(currency);
		const res: Reservation = { currency, amount, rules, execution: false, left: {} };
		if (rules.perExecution !== undefined) this.countInExecution(res, rules.perExecution, amount, label);
		if (rules.perDay !== undefined) {
			let held = false;
			try {
				await this.reserveDay(rules.perDay, amount, currency, label, res);
				held = true;
			} finally {
				if (!held) this.giveBackExecution(res);
			}
		}
		return res;
	}

	private async reserveDay(budget: number, amount: number, currency: string, label: string, res: Reservation): Promise<void> {
		const day = dayIn(this.ctx.getTimezone(), this.now());
		const key = `${day}|${currency}|${budget}`;
		if (await this.inStore(async () => await this.claimUnits(budget, amount, day, key, label, res))) return;
		this.countInStaticDay(budget, day, key, res, amount, label);
	}

	/**
	 * Runs `claim` against n8n's deduplication store when the node has one: false when it has none
	 * (n8n-core without n8n: its deduplication service was never given a store), and from then on
	 * the day's totals are kept in static data.
	 */
	private async inStore(claim: () => Promise<void>): Promise<boolean> {
		if (!this.helpers) return false;
		const claimed = await claim().then(
			() => true,
			(error: unknown) => (notInitialised(error) ? false : Promise.reject(error)),
		);
		if (!claimed) this.helpers = false;
		return claimed;
	}

	/** Adds `amount` to this execution's total; with `label`, refuses (nothing added) what would pass the budget. */
	private countInExecution(res: Reservation, budget: number, amount: number, label?: string): void {
		const spent = this.spentInExecution();
		const before = spent[res.currency] ?? 0;
		if (label !== undefined && round(before + amount) > budget) {
			throw new BudgetExceeded(exceeded('Maximum Total per Execution', budget, amount, before, label, 'in this execution'));
		}
		spent[res.currency] = round(before + amount);
		res.execution = true;
		res.left.execution = Math.max(0, round(budget - spent[res.currency]));
	}

	/**
	 * Adds `amount` to the day's total in static data (exact within one running n8n instance); with
	 * `label`, refuses (nothing added) what would pass the budget.
	 */
	private countInStaticDay(budget: number, day: string, key: string, res: Reservation, amount: number, label?: string): void {
		const hints = this.staticDay();
		const before = hints[key] ?? 0;
		if (label !== undefined && round(before + amount) > budget) {
			throw new BudgetExceeded(exceeded('Maximum Total per Day', budget, amount, before, label, `today (${day})`));
		}
		this.pruneDays(hints, day);
		hints[key] = round(before + amount);
		res.day = { key };
		res.left.today = Math.max(0, round(budget - hints[key]));
	}

	/** The day's units this write needs, claimed in n8n's store (see above). */
	private async claimUnits(budget: number, amount: number, day: string, key: string, label: string, res: Reservation, force = false): Promise<void> {
		const hints = this.staticDay();
		const unit = budget / UNITS;
		const held = res.day?.units ?? [];
		const need = Math.max(1, Math.ceil(round(amount / unit))) - held.length;
		if (need <= 0) return;
		const hintKey = `next|${key}`;
		const mine: string[] = [];
		let next = hints[hintKey] ?? 0;
		const row = rowOf(this.ctx);
		// Claim the lowest free units until there are enough; what others hold is skipped, and so is
		// what this process handed out today, which the first call puts back (another worker's call may
		// have dropped it from the row).
		await oneAtATime(row, async () => {
			const here = handedOut(row, key, day);
			let repair = [...here].map((n) => unitOf(key, n));
			while (mine.length < need && next < UNITS) {
				const batch: string[] = [];
				for (; batch.length < need - mine.length && next < UNITS; next++) if (!here.has(next)) batch.push(unitOf(key, next));
				if (batch.length === 0) break;
				const out = await this.ctx.helpers.checkProcessedAndRecord([...batch, ...repair], 'node', DEDUP);
				repair = [];
				const asked = new Set(batch);
				mine.push(...out.new.map(String).filter((u) => asked.has(u)));
			}
			if (mine.length >= need || force) for (const u of mine) here.add(unitIndex(u));
		});
		if (mine.length < need && !force) {
			if (mine.length > 0) await oneAtATime(rowOf(this.ctx), async () => await this.ctx.helpers.removeProcessed(mine, 'node', DEDUP));
			const spent = round((UNITS - mine.length) * unit);
			throw new BudgetExceeded(exceeded('Maximum Total per Day', budget, amount, spent, label, `today (${day}, counted in units of ${round(unit)})`));
		}
		this.pruneDays(hints, day);
		const last = mine.length > 0 ? unitIndex(mine[mine.length - 1]) + 1 : next;
		hints[hintKey] = Math.max(hints[hintKey] ?? 0, last);
		res.day = { key, units: [...held, ...mine] };
		res.left.today = Math.max(0, round(budget - (mine.length < need ? UNITS : last) * unit));
	}

	/**
	 * The service recorded more than the write held (or in another currency): that moved, so it is
	 * counted whatever the budgets say (past a budget, the next write is refused). A recorded
	 * currency other than the one held is counted in that currency too; what was held stays held.
	 */
	async recorded(res: Reservation, amount: number, currencyIn: string | undefined): Promise<void> {
		const currency = currencyIn === undefined || currencyIn === '' ? res.currency : currencyIn.toUpperCase();
		const target: Reservation = currency === res.currency ? res : { currency, amount: 0, rules: res.rules, execution: false, left: {} };
		const extra = round(amount - target.amount);
		if (!(extra > 0)) return;
		if (target.rules.perExecution !== undefined) this.countInExecution(target, target.rules.perExecution, extra);
		target.amount = round(target.amount + extra);
		const budget = target.rules.perDay;
		if (budget === undefined) return;
		const day = dayIn(this.ctx.getTimezone(), this.now());
		const key = target.day?.key ?? `${day}|${currency}|${budget}`;
		// Where the write's day units are (n8n's store), or where they would be for a new currency.
		if (target.day?.units !== undefined || target.day === undefined) {
			if (await this.inStore(async () => await this.claimUnits(budget, target.amount, day, key, currencyLabel(currency), target, true))) return;
		}
		this.countInStaticDay(budget, day, key, target, extra);
	}

	/** Entries of other days go (a few a day, at most). */
	private pruneDays(hints: Record<string, number>, day: string): void {
		for (const k of Object.keys(hints)) if (!k.startsWith(day) && !k.startsWith(`next|${day}`)) delete hints[k];
	}

	private giveBackExecution(res: Reservation): void {
		if (!res.execution) return;
		const spent = this.spentInExecution();
		spent[res.currency] = Math.max(0, round((spent[res.currency] ?? 0) - res.amount));
		res.execution = false;
	}

	/** The write provably did not happen: its amount goes back to every budget. */
	async release(res: Reservation | undefined): Promise<void> {
		if (res === undefined) return;
		this.giveBackExecution(res);
		const day = res.day;
		res.day = undefined;
		if (day === undefined) return;
		if (day.units === undefined) {
			const hints = this.staticDay();
			if (hints[day.key] !== undefined) hints[day.key] = Math.max(0, round(hints[day.key] - res.amount));
			return;
		}
		const units = day.units;
		const row = rowOf(this.ctx);
		await oneAtATime(row, async () => {
			await this.ctx.helpers.removeProcessed(units, 'node', DEDUP);
			const here = HANDED_OUT.get(row)?.get(day.key);
			for (const u of units) here?.delete(unitIndex(u));
		});
		const hints = this.staticDay();
		const hintKey = `next|${day.key}`;
		if (hints[hintKey] !== undefined) hints[hintKey] = Math.min(hints[hintKey], unitIndex(units[0]));
	}
}

function unitOf(key: string, n: number): string {
	return `budget|${key}|${n}`;
}

function unitIndex(unit: string): number {
	return Number(unit.slice(unit.lastIndexOf('|') + 1));
}

function exceeded(name: string, budget: number, amount: number, spent: number, currency: string, when: string): string {
	const left = Math.max(0, round(budget - spent));
	return `Refused: this write of ${amount} ${currency} would pass the "${name}" of ${budget}: ${round(spent)} already spent ${when}, ${left} left; nothing was sent`;
}

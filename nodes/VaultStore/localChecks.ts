import type { IExecuteFunctions } from 'n8n-workflow';

import { emitHints, gateText } from '../shared/redaction/gate';
import type { Redactor } from '../shared/redaction/secrets';
import type { WarningSink } from '../shared/validate';

/**
 * Warnings of the node's own checks (rules the service never stated), for
 * every item of a run: each becomes one execution hint, with the items it
 * concerns. The values are sent as given. The "Skip Local Checks" option
 * silences them.
 */
export class LocalChecks {
	private readonly seen = new Map<string, number[]>();
	/** Other hints of the run (e.g. a guessed filter the service ignored, the money gate's): not silenced by the option. */
	private readonly notes = new Map<string, 'info' | 'warning'>();
	private readonly skip: boolean;

	constructor(private readonly ctx: IExecuteFunctions) {
		const options = ctx.getNodeParameter('options', 0, {}) as { skipLocalChecks?: unknown };
		this.skip = options?.skipLocalChecks === true;
	}

	sink(itemIndex: number): WarningSink | undefined {
		if (this.skip) return undefined;
		return (message) => {
			const items = this.seen.get(message) ?? [];
			if (!items.includes(itemIndex)) items.push(itemIndex);
			this.seen.set(message, items);
		};
	}

	/** A hint of the run that is not a local check; each message once. */
	note(messages: string[], type: 'info' | 'warning' = 'warning'): void {
		for (const message of messages) if (!this.notes.has(message)) this.notes.set(message, type);
	}

	/**
	 * Adds the hints collected so far (once each) to the node's output, through the output gate:
	 * a hint may quote the service (a recorded amount, a list's warning), so its text passes the
	 * same redaction as an error message.
	 */
	flush(redactor: Redactor): void {
		const notes = [...this.notes].map(([message, type]) => ({ message: gateText(message, redactor), type }));
		this.notes.clear();
		const checks = [...this.seen].map(([message, items]) => {
			const which = this.ctx.getInputData().length > 1 ? ` (item${items.length > 1 ? 's' : ''} ${items.sort((a, b) => a - b).map((i) => i + 1).join(', ')})` : '';
			const text = `${message}${which}. Sent as given: this is a check of the node, not a rule of the service ("Skip Local Checks" in Options turns these off).`;
			return { message: gateText(text, redactor), type: 'warning' as const };
		});
		this.seen.clear();
		emitHints(this.ctx, [...notes, ...checks]);
	}
}

/**
 * Support cases.
 *   GET  /v2/core/stores/:storeId/cases                  list, newest first; query page, limit, status (any
 *                                                        text; the seeded cases are OPEN or CLOSED)
 *   GET  /v2/core/stores/:storeId/cases/:caseId          the case with its messages
 *   POST /v2/core/stores/:storeId/cases/:caseId/messages {body (1..4000, required), attachments?}: a non-empty
 *        attachments array is a 400 (not supported with store keys; dashboard only). 201 with the message.
 *   POST /v2/core/stores/:storeId/cases/:caseId/read     no body; scope CASES_WRITE; {read: true}, unreadCount = 0
 * The spec names list and get without paths; those paths, the status values, the case fields other than
 * messages, and senderType MERCHANT for replies are our choice. List and get are also served under
 * /v2/stores/:storeId (disagreeing: there only, disagree.ts UNPLACED_ROOTS).
 *
 * Seed (collection 'cases', 6 cases of seeded customers/orders): OPEN and CLOSED, with CUSTOMER and
 * MERCHANT messages; unreadCount counts customer messages after the last merchant reply.
 */
import { badRequest, both, core, Ctx, notFound, ok, paginate, SandboxApp, single, v } from '../app';
import type { SandboxState } from '../state';
import { SEED_ANCHOR } from '../state';
import type { Rng } from '../util';

export const CASE_STATUSES = ['OPEN', 'CLOSED'] as const;

export interface CaseMessage {
	id: string;
	senderType: 'CUSTOMER' | 'MERCHANT';
	senderId: string;
	body: string;
	createdAt: string;
	attachments: { id: string; filename: string; mimeType: string; sizeBytes: number }[];
}

export interface CaseRecord {
	id: string;
	subject: string;
	status: (typeof CASE_STATUSES)[number];
	customerId: string;
	orderId: string | null;
	unreadCount: number;
	messages: CaseMessage[];
	createdAt: string;
	updatedAt: string;
}

const HOUR = 3_600_000;
const SUBJECTS: [string, string[]][] = [
	['License key not working', ['My key says invalid when I activate it.', 'I already tried twice.']],
	['Download link expired', ['The download link from my receipt no longer works.']],
	['Invoice with VAT number', ['Could you add our VAT number to the invoice?']],
	['Upgrade to team plan', ['How do I move from Solo to Team?']],
	['Refund request', ['I bought the wrong bundle, can I get a refund?']],
	['Question about fonts', ['Are the fonts licensed for web use?']],
];

function seedCases(rng: Rng, state: SandboxState): CaseRecord[] {
	return SUBJECTS.map(([subject, texts], i): CaseRecord => {
		const order = state.orders[(i * 7) % Math.max(1, state.orders.length)];
		const customerId = order?.customerId ?? state.customers[i % state.customers.length].id;
		const start = SEED_ANCHOR - (30 - i * 4) * 24 * HOUR;
		const messages: CaseMessage[] = texts.map((body, j) => ({
			id: rng.id('msg_'),
			senderType: 'CUSTOMER',
			senderId: customerId,
			body,
			createdAt: new Date(start + j * HOUR).toISOString(),
			attachments:
				i === 0 && j === 0 ? [{ id: rng.id('att_'), filename: 'screenshot.png', mimeType: 'image/png', sizeBytes: 48213 }] : [],
		}));
		const closed = i >= 4;
		if (closed || i === 2) {
			messages.push({
				id: rng.id('msg_'),
				senderType: 'MERCHANT',
				senderId: state.store.id,
				body: 'Thanks, this is sorted now.',
				createdAt: new Date(start + 5 * HOUR).toISOString(),
				attachments: [],
			});
		}
		return {
			id: rng.id('cs_'),
			subject,
			status: closed ? 'CLOSED' : 'OPEN',
			customerId,
			orderId: order?.id ?? null,
			unreadCount: unread(messages),
			messages,
			createdAt: new Date(start).toISOString(),
			updatedAt: messages[messages.length - 1].createdAt,
		};
	}).sort((a, b) => b.createdAt.localeCompare(a.createdAt));
}

function unread(messages: CaseMessage[]): number {
	let n = 0;
	for (const m of messages) n = m.senderType === 'MERCHANT' ? 0 : n + 1;
	return n;
}

export function casesOf(app: SandboxApp): CaseRecord[] {
	return app.collection<CaseRecord>('cases', (rng) => seedCases(rng, app.state));
}

const listItem = (c: CaseRecord) => {
	const { messages, ...rest } = c;
	return { ...rest, messageCount: messages.length };
};

function findCase(ctx: Ctx): CaseRecord {
	const found = casesOf(ctx.app).find((c) => c.id === ctx.params.caseId);
	if (!found) throw notFound('Case');
	return found;
}

export function register(app: SandboxApp): void {
	app.route('GET', both('/cases'), (ctx) => {
		const status = v.str(single(ctx.query.status, 'status'), 'status');
		const found = casesOf(app).filter((c) => !status || c.status === status);
		return ok(paginate(found, ctx.query, listItem));
	});

	app.route('GET', both('/cases/:caseId'), (ctx) => ok(findCase(ctx)));

	app.route('POST', core('/cases/:caseId/messages'), (ctx) => {
		const found = findCase(ctx);
		v.onlyFields(ctx.body, ['body', 'attachments']);
		const body = v.str(ctx.body.body, 'body', { required: true, max: 4000 }) as string;
		const attachments = v.arr(ctx.body.attachments, 'attachments', { max: 5 });
		if (attachments && attachments.length > 0) {
			throw badRequest('attachments', 'are not supported with store API keys; add attachments from the merchant dashboard');
		}
		const message: CaseMessage = {
			id: ctx.app.newId('msg_'),
			senderType: 'MERCHANT',
			senderId: ctx.auth?.kind === 'store' ? ctx.auth.storeId : found.id,
			body,
			createdAt: ctx.iso(),
			attachments: [],
		};
		found.messages.push(message);
		found.updatedAt = message.createdAt;
		found.unreadCount = unread(found.messages);
		return ok(message, 201);
	});

	app.route('POST', core('/cases/:caseId/read'), (ctx) => {
		const found = findCase(ctx);
		v.onlyFields(ctx.body, []);
		found.unreadCount = 0;
		return ok({ read: true });
	}, { scope: 'CASES_WRITE' });
}

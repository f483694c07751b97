import type { IdRule } from './validate';

/** Path ids of the spec: prefixes where it gives one; every id is 12 to 48 characters. */
export const ID = {
	productId: { label: 'Product ID', prefix: 'prd_' },
	categoryId: { label: 'Category ID' },
	customerId: { label: 'Customer ID', prefix: 'cus_' },
	orderId: { label: 'Order ID', prefix: 'ord_' },
	subscriptionId: { label: 'Subscription ID', prefix: 'sub_' },
	licenseId: { label: 'License ID' },
	caseId: { label: 'Case ID', prefix: 'cs_' },
	webhookId: { label: 'Webhook ID', prefix: 'whk_' },
	reportId: { label: 'Report ID' },
	sessionId: { label: 'Checkout Session ID' },
	paylinkId: { label: 'Paylink ID' },
	tokenId: { label: 'Token ID', prefix: 'tok_' },
	disputeId: { label: 'Dispute ID' },
	refundId: { label: 'Refund ID' },
	meterId: { label: 'Meter ID' },
} satisfies Record<string, IdRule>;

import type { IdRule } from './validate';

/**
 * Ids of the spec: prefixes where it gives one. Store path ids are 12 to 48
 * characters ("every path id has length 12 to 48"); vault ids (`tok_`) and
 * customer ids (`cus_`, never a path id) have their prefix as the only rule.
 */
export const ID = {
	productId: { label: 'Product ID', prefix: 'prd_' },
	categoryId: { label: 'Category ID', prefix: 'ctg_' },
	customerId: { label: 'Customer ID', prefix: 'cus_', anyLength: true },
	orderId: { label: 'Order ID', prefix: 'ord_' },
	subscriptionId: { label: 'Subscription ID', prefix: 'sub_' },
	licenseId: { label: 'License ID', prefix: 'lic_' },
	caseId: { label: 'Case ID', prefix: 'cs_' },
	webhookId: { label: 'Webhook ID', prefix: 'whk_' },
	reportId: { label: 'Report ID' },
	sessionId: { label: 'Checkout Session ID' },
	paylinkId: { label: 'Paylink ID' },
	tokenId: { label: 'Token ID', prefix: 'tok_', anyLength: true },
	disputeId: { label: 'Dispute ID' },
	refundId: { label: 'Refund ID' },
	meterId: { label: 'Meter ID' },
} satisfies Record<string, IdRule>;

import type { Resource } from '../operation';
import { order } from './order';
import { store } from './store';
import { subscription } from './subscription';
import { payout } from './payout';
import { webhook } from './webhook';
import { custom } from './custom';
import { token } from './token';
import { product } from './product';
import { category } from './category';
import { customer } from './customer';
import { license } from './license';
import { supportCase } from './case';
import { mandate } from './mandate';
import { analytics } from './analytics';
import { report } from './report';
import { search } from './search';
import { checkout } from './checkout';
import { dispute } from './dispute';
import { refund } from './refund';
import { meter } from './meter';
import { licenseGetAll, licenseGetAllFields } from './license/getAll';

/** License > Get Many (issue 11) until the row is merged into license/operations.ts and fields.ts. */
const licenseWithList: Resource = license.operations.some((o) => o.value === licenseGetAll.value)
	? license
	: {
			...license,
			operations: [...license.operations, licenseGetAll].sort((a, b) => a.name.localeCompare(b.name)),
			fields: [...license.fields, ...licenseGetAllFields],
		};

/** Every resource of the node, in the order the editor lists them. */
export const resources: Resource[] = [order, store, subscription, payout, webhook, token, product, category, customer, licenseWithList, supportCase, mandate, analytics, report, search, checkout, dispute, refund, meter, custom];

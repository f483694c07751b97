import type { Resource } from '../operation';
import { analytics } from './analytics';
import { supportCase } from './case';
import { category } from './category';
import { checkout } from './checkout';
import { custom } from './custom';
import { customer } from './customer';
import { dispute } from './dispute';
import { license } from './license';
import { mandate } from './mandate';
import { meter } from './meter';
import { order } from './order';
import { payout } from './payout';
import { product } from './product';
import { refund } from './refund';
import { report } from './report';
import { search } from './search';
import { store } from './store';
import { subscription } from './subscription';
import { token } from './token';
import { webhook } from './webhook';

/** Every resource of the node, in the order the editor lists them (alphabetical, the escape hatch last). */
export const resources: Resource[] = [
	analytics,
	supportCase,
	category,
	checkout,
	customer,
	dispute,
	license,
	mandate,
	meter,
	order,
	payout,
	product,
	refund,
	report,
	search,
	store,
	subscription,
	token,
	webhook,
	custom,
];


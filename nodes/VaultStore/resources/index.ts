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

/** Every resource of the node, in the order the editor lists them. */
export const resources: Resource[] = [order, store, subscription, payout, webhook, token, product, category, customer, license, supportCase, mandate, analytics, report, search, checkout, custom];

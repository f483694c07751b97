import type { Resource } from '../operation';
import { order } from './order';
import { store } from './store';

/** Every resource of the node, in the order the editor lists them. */
export const resources: Resource[] = [order, store];

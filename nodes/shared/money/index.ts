/**
 * The request gate's money rules, one entry: the executor builds a `RequestGate` for the run and
 * hands it to the transport, which passes every request through it.
 */
export type { Admission, GateSetup, ItemRules, RowRules, Ticket } from './gate';
export { RequestGate } from './gate';
export type { DeclaredMoneyRoute, MoneyRoute } from './routes';
export { MoneyRoutes } from './routes';
export type { MoneySpec } from './spec';
export { AMOUNT_NAME_RULES } from './amounts';

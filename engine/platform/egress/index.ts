export { createEgressPolicy } from './policy.ts';
export type { EgressPolicy, EgressPolicyOptions, LookupFunction } from './policy.ts';
export { parseEgressAllow, EMPTY_ALLOW_LIST } from './allow-list.ts';
export type { EgressAllowList } from './allow-list.ts';
export { EgressDeniedError } from './egress-denied.ts';
export { classifyAddress } from './address-classes.ts';
export type { AddressClass } from './address-classes.ts';
export { createEgressConnector } from './connector.ts';

import type { Dispatcher } from 'undici';
import type { EgressAllowList } from '../egress/allow-list.ts';
import { createEgressPolicy, type LookupFunction } from '../egress/policy.ts';
import { createHttpClient, type HttpClient } from './client.ts';
import type { OutboundSettings } from './settings.ts';

/**
 * The gateway's outbound client as configured: OUTBOUND_* limits, the egress
 * policy with EGRESS_ALLOW. `resolve` replaces DNS and `dispatcher` the
 * Agent, for tests only. Create one per process and close it at shutdown.
 */
export function createConfiguredHttpClient(
  config: { outbound: OutboundSettings; egressAllow: EgressAllowList },
  testing: { resolve?: LookupFunction; dispatcher?: Dispatcher } = {},
): HttpClient {
  const policy = createEgressPolicy(config.egressAllow, testing.resolve ? { resolve: testing.resolve } : {});
  return createHttpClient({ settings: config.outbound, policy, ...(testing.dispatcher ? { dispatcher: testing.dispatcher } : {}) });
}

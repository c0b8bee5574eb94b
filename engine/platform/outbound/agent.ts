import { Agent, type buildConnector } from 'undici';
import { createEgressConnector } from '../egress/connector.ts';
import type { EgressPolicy } from '../egress/policy.ts';
import type { OutboundSettings } from './settings.ts';

/**
 * The dispatcher for calls to third-party apps: one keep-alive pool per
 * origin (up to `connectionsPerOrigin` sockets each), the connect timeout,
 * and the egress policy on every socket it opens. `tls` passes extra TLS
 * options (a private CA in tests, for example).
 */
export function createOutboundAgent(settings: OutboundSettings, policy: EgressPolicy, tls: buildConnector.BuildOptions = {}): Agent {
  return new Agent({
    connections: settings.connectionsPerOrigin,
    headersTimeout: settings.headersTimeoutMs,
    bodyTimeout: settings.bodyTimeoutMs,
    connect: createEgressConnector(policy, { ...tls, timeout: settings.connectTimeoutMs }),
  });
}

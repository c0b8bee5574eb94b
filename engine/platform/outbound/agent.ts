import { Agent, type buildConnector } from 'undici';
import { createEgressConnector } from '../egress/connector.ts';
import type { EgressPolicy } from '../egress/policy.ts';
import type { OutboundSettings } from './settings.ts';

/**
 * The dispatcher for calls to third-party apps: one keep-alive pool per
 * origin (without a cap on its sockets unless `connectionsPerOrigin` sets
 * one: a slow provider must not cap the gateway at sockets / latency; an
 * app's calls at once are bounded by its api.yaml concurrency, the process's
 * by the memory its responses take), the connect timeout,
 * and the egress policy on every socket it opens. `tls` passes extra TLS
 * options (a private CA in tests, for example).
 */
export function createOutboundAgent(settings: OutboundSettings, policy: EgressPolicy, tls: buildConnector.BuildOptions = {}): Agent {
  return new Agent({
    connections: settings.connectionsPerOrigin === 0 ? null : settings.connectionsPerOrigin,
    headersTimeout: settings.headersTimeoutMs,
    bodyTimeout: settings.bodyTimeoutMs,
    connect: createEgressConnector(policy, { ...tls, timeout: settings.connectTimeoutMs }),
  });
}

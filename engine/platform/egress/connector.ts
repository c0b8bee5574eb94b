import { buildConnector } from 'undici';
import type { EgressPolicy } from './policy.ts';

/**
 * An undici connector that enforces the egress policy on every new socket:
 * IP literals (which net.connect does not look up) are checked before the
 * socket is created, and names are resolved through the policy's lookup,
 * which refuses the answer before any connection is attempted. Pooled
 * keep-alive sockets were checked when they were opened.
 */
export function createEgressConnector(policy: EgressPolicy, options: buildConnector.BuildOptions = {}): buildConnector.connector {
  const connect = buildConnector({ ...options, lookup: policy.lookup } as buildConnector.BuildOptions);
  return (target, callback) => {
    const denied = policy.checkHost(target.hostname);
    if (denied) {
      process.nextTick(() => callback(denied, null));
      return;
    }
    connect(target, callback);
  };
}

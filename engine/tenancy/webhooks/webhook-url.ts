import type { EgressAllowList } from '../../platform/egress/allow-list.ts';
import { allowsAddress, allowsHost } from '../../platform/egress/allow-list.ts';
import { bareAddress, isIpLiteral } from '../../platform/egress/address-classes.ts';
import { EgressDeniedError } from '../../platform/egress/egress-denied.ts';
import { createEgressPolicy, type EgressPolicy, type LookupFunction } from '../../platform/egress/policy.ts';
import { validationError } from '../../platform/errors/index.ts';

/** How long a webhook host may take to resolve at registration. */
export const RESOLVE_AT_REGISTRATION_MS = 5_000;

/**
 * A webhook URL as registered: https (http only for a host EGRESS_ALLOW
 * admits: a receiver on the same machine or network, for tests and local
 * use), no credentials in it, not an IP literal the egress policy refuses,
 * and a host name that resolves, to at least one address the egress policy
 * admits (rule `resolve`, rule `egress`). Accepted unresolved, such a URL was
 * retried for a whole retry window without a chance of success. Each delivery
 * resolves it again (the outbound client's egress lookup): DNS may change, and
 * a name moved to a refused address is refused then, recorded as the
 * attempt's error. `resolve`: how names are resolved (dns.lookup by default).
 */
export async function checkWebhookUrl(text: string, allow: EgressAllowList, resolve?: LookupFunction): Promise<string> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw validationError([{ field: 'url', rule: 'format', message: 'must be an absolute https URL' }]);
  }
  const host = url.hostname;
  if (url.protocol === 'http:') {
    if (!admitted(allow, host)) {
      throw validationError([{ field: 'url', rule: 'https', message: `must be https; http is accepted only for hosts EGRESS_ALLOW admits, and ${host} is not one` }]);
    }
  } else if (url.protocol !== 'https:') {
    throw validationError([{ field: 'url', rule: 'https', message: `must be https (got ${url.protocol})` }]);
  }
  if (url.port === '0') {
    throw validationError([{ field: 'url', rule: 'port', message: 'must not name port 0, which no receiver listens on' }]);
  }
  if (url.username || url.password) {
    throw validationError([{ field: 'url', rule: 'credentials', message: 'must not carry a user name or password; the signature authenticates the gateway' }]);
  }
  const policy = createEgressPolicy(allow, resolve ? { resolve } : {});
  const denied = policy.checkHost(host);
  if (denied) throw validationError([{ field: 'url', rule: 'egress', message: `refused by the egress policy: ${denied.message}` }]);
  if (!isIpLiteral(host)) await requireResolvable(policy, host);
  return url.href;
}

/** The host resolves, and to at least one address the policy admits; else the 400 naming the rule. */
async function requireResolvable(policy: EgressPolicy, host: string): Promise<void> {
  const error = await new Promise<NodeJS.ErrnoException | null>((settle) => {
    const timer = setTimeout(() => settle(Object.assign(new Error(`no answer within ${RESOLVE_AT_REGISTRATION_MS} ms`), { code: 'ETIMEOUT' })), RESOLVE_AT_REGISTRATION_MS);
    policy.lookup(host, { all: true }, (failure) => {
      clearTimeout(timer);
      settle(failure);
    });
  });
  if (!error) return;
  if (error instanceof EgressDeniedError) {
    throw validationError([{ field: 'url', rule: 'egress', message: `${host} resolves only to addresses the egress policy refuses: ${error.message}` }]);
  }
  throw validationError([
    { field: 'url', rule: 'resolve', message: `${host} does not resolve (${error.code ?? error.message}): a receiver must have an address when it is registered` },
  ]);
}

function admitted(allow: EgressAllowList, host: string): boolean {
  return allowsHost(allow, host) || (isIpLiteral(host) && allowsAddress(allow, bareAddress(host)));
}

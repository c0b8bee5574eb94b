import type { EgressAllowList } from '../../platform/egress/allow-list.ts';
import { allowsAddress, allowsHost } from '../../platform/egress/allow-list.ts';
import { bareAddress, isIpLiteral } from '../../platform/egress/address-classes.ts';
import { createEgressPolicy } from '../../platform/egress/policy.ts';
import { validationError } from '../../platform/errors/index.ts';

/**
 * A webhook URL as registered: https (http only for a host EGRESS_ALLOW
 * admits: a receiver on the same machine or network, for tests and local
 * use), no credentials in it, and not an IP literal the egress policy
 * refuses. A host name is checked where it can be checked for certain: when
 * each delivery resolves it (the outbound client's egress lookup), so a name
 * pointing at a private address is refused at delivery, recorded as the
 * attempt's error.
 */
export function checkWebhookUrl(text: string, allow: EgressAllowList): string {
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
  if (url.username || url.password) {
    throw validationError([{ field: 'url', rule: 'credentials', message: 'must not carry a user name or password; the signature authenticates the gateway' }]);
  }
  const denied = createEgressPolicy(allow).checkHost(host);
  if (denied) throw validationError([{ field: 'url', rule: 'egress', message: `refused by the egress policy: ${denied.message}` }]);
  return url.href;
}

function admitted(allow: EgressAllowList, host: string): boolean {
  return allowsHost(allow, host) || (isIpLiteral(host) && allowsAddress(allow, bareAddress(host)));
}

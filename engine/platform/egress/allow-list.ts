import { parsed, type Env } from '../settings/env.ts';
import ipaddr from 'ipaddr.js';
import { bareAddress, isIpLiteral } from './address-classes.ts';

/**
 * EGRESS_ALLOW: comma-separated entries that admit destinations the egress
 * policy would otherwise refuse. An entry is a CIDR (`10.1.0.0/16`,
 * `fd00::/8`), a single address (`127.0.0.1`, `::1`: the same as /32 or
 * /128), a host name (`billing.internal`) or a host-name suffix
 * (`*.corp.example`, which admits sub-domains but not `corp.example` itself).
 * A host-name entry admits whatever that name resolves to.
 */
export interface EgressAllowList {
  ranges: [ipaddr.IPv4 | ipaddr.IPv6, number][];
  hosts: Set<string>;
  suffixes: string[];
  /** The entries as written, for messages and docs. */
  entries: string[];
}

export const EMPTY_ALLOW_LIST: EgressAllowList = { ranges: [], hosts: new Set(), suffixes: [], entries: [] };

const HOST_NAME = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** Parses EGRESS_ALLOW; throws an Error naming the first bad entry. Undefined or empty gives an empty list. */
export function parseEgressAllow(value: string | undefined): EgressAllowList {
  const list: EgressAllowList = { ranges: [], hosts: new Set(), suffixes: [], entries: [] };
  if (value === undefined) return list;
  for (const raw of value.split(',')) {
    const entry = raw.trim();
    if (entry === '') continue;
    list.entries.push(entry);
    if (entry.includes('/')) {
      if (!ipaddr.isValidCIDR(entry)) throw new Error(`entry "${entry}" is not a valid CIDR (e.g. 10.1.0.0/16 or fd00::/8)`);
      list.ranges.push(ipaddr.parseCIDR(entry));
    } else if (isIpLiteral(entry)) {
      const address = ipaddr.parse(bareAddress(entry));
      list.ranges.push([address, address.kind() === 'ipv4' ? 32 : 128]);
    } else if (entry.startsWith('*.') && HOST_NAME.test(entry.slice(2).toLowerCase())) {
      list.suffixes.push(entry.slice(1).toLowerCase());
    } else if (HOST_NAME.test(entry.toLowerCase())) {
      list.hosts.add(entry.toLowerCase());
    } else {
      throw new Error(`entry "${entry}" is not a CIDR, an IP address, a host name or *.suffix`);
    }
  }
  return list;
}

/** True when the host name is admitted by a host or suffix entry. */
export function allowsHost(list: EgressAllowList, host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return list.hosts.has(name) || list.suffixes.some((suffix) => name.endsWith(suffix));
}

/**
 * True when the address is admitted by a range entry. An IPv4-mapped IPv6
 * address is also matched as the IPv4 address it carries, so `127.0.0.1/32`
 * admits `::ffff:127.0.0.1` too.
 */
export function allowsAddress(list: EgressAllowList, address: string): boolean {
  if (list.ranges.length === 0) return false;
  const parsed = ipaddr.parse(bareAddress(address));
  const forms: (ipaddr.IPv4 | ipaddr.IPv6)[] = [parsed];
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) forms.push((parsed as ipaddr.IPv6).toIPv4Address());
  return forms.some((form) => list.ranges.some(([range, bits]) => range.kind() === form.kind() && form.match(range, bits)));
}

/** `EGRESS_ALLOW`: comma-separated CIDRs, addresses, host names or *.suffixes; unset admits none. */
export function egressAllowFromEnv(env: Env): EgressAllowList {
  return parsed(env, 'EGRESS_ALLOW', parseEgressAllow);
}

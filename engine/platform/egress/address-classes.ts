import ipaddr from 'ipaddr.js';

/**
 * Which addresses the gateway refuses to call, by class. An address is parsed
 * (never string-matched), IPv6 forms that embed an IPv4 address
 * (IPv4-mapped ::ffff:a.b.c.d, IPv4-compatible ::a.b.c.d, SIIT
 * ::ffff:0:a.b.c.d, NAT64 64:ff9b::/96, 6to4 2002::/16, Teredo 2001::/32)
 * are judged by the IPv4 address(es) they carry, and the first class whose
 * range holds it wins (cloud metadata before link-local).
 */
export type AddressClass =
  | 'cloud metadata'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'unique-local'
  | 'site-local'
  | 'unspecified'
  | 'carrier-grade NAT'
  | 'multicast'
  | 'broadcast'
  | 'documentation'
  | 'local-use NAT64'
  | 'reserved'
  /** One of the host's own non-loopback interface addresses (decided by the policy, not by the tables below). */
  | 'this host';

type Range = [string, number];

const IPV4_CLASSES: [AddressClass, Range[]][] = [
  ['cloud metadata', [['169.254.169.254', 32], ['169.254.170.2', 32], ['100.100.100.200', 32]]],
  ['unspecified', [['0.0.0.0', 8]]],
  ['loopback', [['127.0.0.0', 8]]],
  ['private', [['10.0.0.0', 8], ['172.16.0.0', 12], ['192.168.0.0', 16]]],
  ['link-local', [['169.254.0.0', 16]]],
  ['carrier-grade NAT', [['100.64.0.0', 10]]],
  ['multicast', [['224.0.0.0', 4]]],
  ['broadcast', [['255.255.255.255', 32]]],
  ['documentation', [['192.0.2.0', 24], ['198.51.100.0', 24], ['203.0.113.0', 24]]],
  ['reserved', [['240.0.0.0', 4], ['192.0.0.0', 24], ['198.18.0.0', 15]]],
];

const IPV6_CLASSES: [AddressClass, Range[]][] = [
  ['cloud metadata', [['fd00:ec2::254', 128]]],
  ['unspecified', [['::', 128]]],
  ['loopback', [['::1', 128]]],
  ['link-local', [['fe80::', 10]]],
  ['unique-local', [['fc00::', 7]]],
  ['site-local', [['fec0::', 10]]],
  ['multicast', [['ff00::', 8]]],
  ['documentation', [['2001:db8::', 32]]],
  // RFC 8215: translated by the operator's own NAT64, at a prefix length (/48 to /96) only the operator knows, so
  // the IPv4 address inside cannot be told for certain: the whole range is refused.
  ['local-use NAT64', [['64:ff9b:1::', 48]]],
];

function compile<K extends 'ipv4' | 'ipv6'>(table: [AddressClass, Range[]][]) {
  return table.map(([name, ranges]) => ({
    name,
    ranges: ranges.map(([address, bits]) => [ipaddr.parse(address), bits] as [K extends 'ipv4' ? ipaddr.IPv4 : ipaddr.IPv6, number]),
  }));
}
const V4 = compile<'ipv4'>(IPV4_CLASSES);
const V6 = compile<'ipv6'>(IPV6_CLASSES);

export interface Classification {
  /** The class that makes the address refused; null for an ordinary public address. */
  addressClass: AddressClass | null;
  /** The address as judged: the embedded IPv4 address for IPv6 forms that carry one. */
  effective: string;
  /** How the IPv4 address was embedded, when it was. */
  embedding?: Embedding;
}

type Embedding = 'IPv4-mapped' | 'IPv4-compatible' | 'SIIT' | 'NAT64' | '6to4' | 'Teredo client' | 'Teredo server';

/** Classifies one IP address (IPv4 or IPv6, without brackets or zone); throws when it is not one. */
export function classifyAddress(address: string): Classification {
  const parsed = ipaddr.parse(stripZone(address));
  if (parsed.kind() === 'ipv4') return { addressClass: classOf4(parsed as ipaddr.IPv4), effective: parsed.toString() };
  const v6 = parsed as ipaddr.IPv6;
  const embedded = embeddedIPv4(v6);
  if (embedded.length > 0) {
    // The first carried address that is refused decides; when none is, the first one is named.
    const judged = embedded.map((e) => ({ ...e, addressClass: classOf4(e.address) }));
    const decisive = judged.find((e) => e.addressClass !== null) ?? judged[0]!;
    return { addressClass: decisive.addressClass, effective: decisive.address.toString(), embedding: decisive.embedding };
  }
  const hit = V6.find((c) => c.ranges.some((range) => v6.match(range)));
  return { addressClass: hit ? hit.name : null, effective: v6.toString() };
}

function classOf4(address: ipaddr.IPv4): AddressClass | null {
  const hit = V4.find((c) => c.ranges.some((range) => address.match(range)));
  return hit ? hit.name : null;
}

/**
 * The IPv4 addresses an IPv6 address carries, in the order they are judged.
 * Teredo (RFC 4380) carries two: the client's (the last 32 bits, inverted),
 * which is where the traffic goes, and the Teredo server's (bits 32-64).
 */
function embeddedIPv4(address: ipaddr.IPv6): { address: ipaddr.IPv4; embedding: Embedding }[] {
  const p = address.parts;
  const low = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
  const zeros = (from: number, to: number) => p.slice(from, to).every((x) => x === 0);
  if (zeros(0, 5) && p[5] === 0xffff) return [{ address: low(p[6]!, p[7]!), embedding: 'IPv4-mapped' }];
  // ::ffff:0:a.b.c.d, the IPv4-translated addresses of SIIT (RFC 2765, 6145).
  if (zeros(0, 4) && p[4] === 0xffff && p[5] === 0) return [{ address: low(p[6]!, p[7]!), embedding: 'SIIT' }];
  // ::a.b.c.d (deprecated IPv4-compatible), but not :: and ::1 themselves.
  if (zeros(0, 6) && (p[6] !== 0 || p[7]! > 1)) return [{ address: low(p[6]!, p[7]!), embedding: 'IPv4-compatible' }];
  if (p[0] === 0x64 && p[1] === 0xff9b && zeros(2, 6)) return [{ address: low(p[6]!, p[7]!), embedding: 'NAT64' }];
  if (p[0] === 0x2002) return [{ address: low(p[1]!, p[2]!), embedding: '6to4' }];
  if (p[0] === 0x2001 && p[1] === 0) {
    return [
      { address: low(~p[6]! & 0xffff, ~p[7]! & 0xffff), embedding: 'Teredo client' },
      { address: low(p[2]!, p[3]!), embedding: 'Teredo server' },
    ];
  }
  return [];
}

function stripZone(address: string): string {
  const unbracketed = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const zone = unbracketed.indexOf('%');
  return zone === -1 ? unbracketed : unbracketed.slice(0, zone);
}

/** True when the text is an IP literal (with or without IPv6 brackets). */
export function isIpLiteral(host: string): boolean {
  const bare = stripZone(host);
  return ipaddr.IPv4.isValidFourPartDecimal(bare) || ipaddr.IPv6.isValid(bare);
}

export { stripZone as bareAddress };

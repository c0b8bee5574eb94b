import dns from 'node:dns';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { classifyAddress, isIpLiteral, bareAddress, type Classification } from './address-classes.ts';
import { allowsAddress, allowsHost, EMPTY_ALLOW_LIST, type EgressAllowList } from './allow-list.ts';
import { EgressDeniedError } from './egress-denied.ts';
import { createHostAddresses, type InterfacesSource } from './host-addresses.ts';

/** The shape of dns.lookup as net.connect calls it (options always an object there). */
export type LookupFunction = (
  hostname: string,
  options: LookupOptions,
  callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
) => void;

/**
 * The egress policy: which destinations the gateway may connect to. It is
 * applied where the address is known for certain, when the host name has
 * been resolved (the `lookup` below, given to every outbound socket) and,
 * for IP literals that skip the lookup, before the connection is opened
 * (`checkHost`). Nothing is decided from the URL text.
 */
export interface EgressPolicy {
  readonly allow: EgressAllowList;
  /** Throws EgressDeniedError when `address` (one that `host` resolved to, or the literal itself) is refused. */
  checkAddress(host: string, address: string): void;
  /** For an IP literal, checks it; for a name, only the allow-list by name (the addresses are checked at lookup). Returns the error, or null. */
  checkHost(host: string): EgressDeniedError | null;
  /**
   * A dns.lookup that resolves with `resolve` and hands on only the admitted
   * addresses of the answer; when none is admitted it fails with the
   * EgressDeniedError of the first refused one. Nothing is connected to an
   * address that was not checked, so DNS rebinding cannot slip one in.
   */
  lookup: LookupFunction;
}

export interface EgressPolicyOptions {
  /** How names are resolved; dns.lookup by default. Tests inject one to map a name to a chosen address. */
  resolve?: LookupFunction;
  /** The host's network interfaces; os.networkInterfaces by default. Its non-loopback addresses are refused. */
  interfaces?: InterfacesSource;
  /** How long one reading of the interfaces is trusted (10 s by default; 0 reads them on every check). */
  interfacesMaxAgeMs?: number;
}

/** How many admitted hosts a policy remembers before it starts over. */
const ADMITTED_HOSTS_LIMIT = 1_000;

export function createEgressPolicy(allow: EgressAllowList = EMPTY_ALLOW_LIST, options: EgressPolicyOptions = {}): EgressPolicy {
  const resolve: LookupFunction = options.resolve ?? (dns.lookup as unknown as LookupFunction);
  const hostAddresses = createHostAddresses(options.interfaces, options.interfacesMaxAgeMs);

  const refusal = (host: string, address: string): EgressDeniedError | null => {
    if (allowsHost(allow, host)) return null;
    let classification: Classification;
    try {
      classification = classifyAddress(address);
    } catch {
      return new EgressDeniedError(host, address, 'reserved', `${host} resolved to "${address}", which is not an IP address`);
    }
    if (allowsAddress(allow, address)) return null;
    const ownInterface = hostAddresses.interfaceOf(address) ?? hostAddresses.interfaceOf(classification.effective);
    if (ownInterface !== undefined) {
      const own: Classification = { ...classification, addressClass: 'this host' };
      return new EgressDeniedError(host, address, 'this host', deniedMessage(host, address, own, ownInterface));
    }
    if (classification.addressClass === null) return null;
    return new EgressDeniedError(host, address, classification.addressClass, deniedMessage(host, address, classification));
  };

  const checkAddress = (host: string, address: string) => {
    const error = refusal(host, address);
    if (error) throw error;
  };

  // Hosts already admitted: the verdict depends on nothing but the host and this policy's fixed allow-list, and
  // parsing and classifying an IP literal on every call cost ~10 µs. Bounded; refusals are always worked out anew.
  // Forgotten when the host's own addresses change, since an admitted literal may have become one of them.
  const admittedHosts = new Set<string>();
  let admittedGeneration = hostAddresses.generation();
  const checkHost = (host: string) => {
    const generation = hostAddresses.generation();
    if (generation !== admittedGeneration) {
      admittedHosts.clear();
      admittedGeneration = generation;
    }
    if (admittedHosts.has(host)) return null;
    const denied = isIpLiteral(host) ? refusal(bareAddress(host), bareAddress(host)) : null;
    if (!denied) {
      if (admittedHosts.size >= ADMITTED_HOSTS_LIMIT) admittedHosts.clear();
      admittedHosts.add(host);
    }
    return denied;
  };

  const lookup: LookupFunction = (hostname, lookupOptions, callback) => {
    const opts = typeof lookupOptions === 'number' ? { family: lookupOptions } : { ...lookupOptions };
    const fail = (error: NodeJS.ErrnoException) => callback(error, opts.all ? [] : '', undefined);
    resolve(hostname, { ...opts, all: true }, (error, answer) => {
      if (error) return fail(error);
      const addresses = (Array.isArray(answer) ? answer : [{ address: answer, family: 0 }]) as LookupAddress[];
      if (addresses.length === 0) return fail(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname }));
      // Only admitted addresses are handed to the socket; refused only when none is left.
      let firstRefusal: EgressDeniedError | null = null;
      const admitted = addresses.filter(({ address }) => {
        const denied = refusal(hostname, address);
        firstRefusal ??= denied;
        return denied === null;
      });
      if (admitted.length === 0) return fail(firstRefusal as unknown as NodeJS.ErrnoException);
      if (opts.all) return callback(null, admitted);
      return callback(null, admitted[0]!.address, admitted[0]!.family);
    });
  };

  return { allow, checkAddress, checkHost, lookup };
}

function deniedMessage(host: string, address: string, c: Classification, ownInterface?: string): string {
  const article = /^[aeiou]/.test(c.addressClass!) ? 'an' : 'a';
  const carried = c.embedding ? ` (${c.embedding} form of ${c.effective})` : '';
  const subject = host === address ? `${address}${carried} is` : `${host} resolved to ${address}${carried},`;
  const what = ownInterface === undefined ? `${article} ${c.addressClass} address` : `an address of this host (${ownInterface})`;
  return `${subject} ${what}; add it to EGRESS_ALLOW to permit it`;
}

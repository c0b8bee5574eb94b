import os from 'node:os';
import ipaddr from 'ipaddr.js';
import { bareAddress } from './address-classes.ts';

/** The shape of os.networkInterfaces() the egress policy reads (tests inject their own). */
export type InterfacesSource = () => Record<string, readonly { address: string; internal: boolean }[] | undefined>;

/** How long a reading of the host's interfaces is trusted before it is read again (a DHCP lease, a new container network). */
export const DEFAULT_INTERFACES_MAX_AGE_MS = 10_000;

export interface HostAddresses {
  /** The interface that has `address` (any IPv4 or IPv6 text), or undefined when the host has no such non-loopback address. */
  interfaceOf(address: string): string | undefined;
  /** Changes whenever a new reading differs from the last one, so verdicts remembered before can be dropped. */
  generation(): number;
}

/**
 * The host's own non-loopback interface addresses (os.networkInterfaces(),
 * `internal: false`): a request to one of them reaches the gateway's own
 * machine on whatever else listens there, so the egress policy refuses them
 * whatever their class. Read lazily, again when older than `maxAgeMs`
 * (reading costs ~70 µs, too much for every connection).
 */
export function createHostAddresses(source: InterfacesSource = os.networkInterfaces, maxAgeMs = DEFAULT_INTERFACES_MAX_AGE_MS): HostAddresses {
  let byAddress = new Map<string, string>();
  let signature = '';
  let readAt = -Infinity;
  let generation = 0;

  const refresh = () => {
    const now = Date.now();
    if (now - readAt < maxAgeMs) return;
    readAt = now;
    const next = new Map<string, string>();
    for (const [name, list] of Object.entries(source())) {
      for (const entry of list ?? []) {
        if (entry.internal) continue;
        const key = normalized(entry.address);
        if (key !== null && !next.has(key)) next.set(key, name);
      }
    }
    const nextSignature = [...next].map(([address, name]) => `${address}@${name}`).sort().join(',');
    if (nextSignature !== signature) {
      signature = nextSignature;
      byAddress = next;
      generation++;
    }
  };

  return {
    interfaceOf(address) {
      refresh();
      const key = normalized(address);
      return key === null ? undefined : byAddress.get(key);
    },
    generation() {
      refresh();
      return generation;
    },
  };
}

function normalized(address: string): string | null {
  try {
    const parsed = ipaddr.parse(bareAddress(address));
    return parsed.kind() === 'ipv6' ? (parsed as ipaddr.IPv6).toNormalizedString() : parsed.toString();
  } catch {
    return null;
  }
}

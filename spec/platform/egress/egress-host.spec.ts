import { expect } from 'chai';
import os from 'node:os';
import type { LookupAddress } from 'node:dns';
import { EgressDeniedError } from '../../../engine/platform/egress/egress-denied.ts';
import { parseEgressAllow } from '../../../engine/platform/egress/allow-list.ts';
import { createEgressPolicy, type LookupFunction } from '../../../engine/platform/egress/policy.ts';

type Interfaces = Record<string, { address: string; internal: boolean }[]>;

/** Resolves every name to `address`; no socket is ever opened by these tests (only the policy's lookup and checkHost run). */
const resolveTo = (address: string): LookupFunction => (_hostname, _options, callback) =>
  callback(null, [{ address, family: address.includes(':') ? 6 : 4 }] as LookupAddress[]);

function lookup(policy: ReturnType<typeof createEgressPolicy>, host: string): Promise<{ error: Error | null; address: unknown }> {
  return new Promise((resolve) => policy.lookup(host, { all: true }, (error, address) => resolve({ error, address })));
}

describe("egress policy: the host's own addresses", () => {
  const publicLooking: Interfaces = {
    lo: [{ address: '127.0.0.1', internal: true }],
    eth0: [{ address: '93.184.215.14', internal: false }, { address: '2606:4700:4700::1111', internal: false }],
  };

  it('refuses an IP literal that is one of the host interface addresses, naming the interface', () => {
    const policy = createEgressPolicy(undefined, { interfaces: () => publicLooking });
    const error = policy.checkHost('93.184.215.14');
    expect(error).to.be.instanceOf(EgressDeniedError);
    expect(error!.code).to.equal('EGRESS_DENIED');
    expect(error!.addressClass).to.equal('this host');
    expect(error!.message).to.equal("93.184.215.14 is an address of this host (eth0); add it to EGRESS_ALLOW to permit it");
    expect(policy.checkHost('[2606:4700:4700::1111]')!.addressClass).to.equal('this host');
    expect(policy.checkHost('::ffff:93.184.215.14')!.message).to.match(/\(IPv4-mapped form of 93\.184\.215\.14\) is an address of this host \(eth0\)/);
    expect(policy.checkHost('93.184.215.15'), 'a neighbour').to.equal(null);
  });

  it('refuses a name that resolves to a host address, before any socket is opened', async () => {
    const policy = createEgressPolicy(undefined, { interfaces: () => publicLooking, resolve: resolveTo('93.184.215.14') });
    const { error } = await lookup(policy, 'self.example.test');
    expect(error).to.be.instanceOf(EgressDeniedError);
    expect(error!.message).to.equal('self.example.test resolved to 93.184.215.14, an address of this host (eth0); add it to EGRESS_ALLOW to permit it');
  });

  it('admits a host address that EGRESS_ALLOW lists', () => {
    const policy = createEgressPolicy(parseEgressAllow('93.184.215.14'), { interfaces: () => publicLooking });
    expect(policy.checkHost('93.184.215.14')).to.equal(null);
  });

  it('sees an address the host gained after it was first asked (the interfaces are read again once they are older than interfacesMaxAgeMs)', () => {
    let current: Interfaces = { lo: publicLooking.lo! };
    const policy = createEgressPolicy(undefined, { interfaces: () => current, interfacesMaxAgeMs: 0 });
    expect(policy.checkHost('93.184.215.14'), 'not yet the host').to.equal(null);
    current = publicLooking;
    expect(policy.checkHost('93.184.215.14')?.addressClass, 'remembered as admitted, but the host changed').to.equal('this host');
  });

  it("refuses every non-loopback address of this machine's real interfaces (os.networkInterfaces)", function () {
    const own = Object.entries(os.networkInterfaces()).flatMap(([name, list]) =>
      (list ?? []).filter((i) => !i.internal).map((i) => ({ name, address: i.address })));
    if (own.length === 0) this.skip();
    const policy = createEgressPolicy(parseEgressAllow(undefined));
    for (const { name, address } of own) {
      const error = policy.checkHost(address);
      expect(error, address).to.be.instanceOf(EgressDeniedError);
      expect(error!.addressClass, address).to.equal('this host');
      expect(error!.message, address).to.include(`an address of this host (${name})`);
    }
  });
});

import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { EgressDeniedError } from '../../../engine/platform/egress/egress-denied.ts';
import { createEgressPolicy } from '../../../engine/platform/egress/policy.ts';
import { parseEgressAllow } from '../../../engine/platform/egress/allow-list.ts';

interface Row { address: string; class?: string; embedding?: string; carried?: string; why?: string }
const corpus = JSON.parse(readFileSync(new URL('../../fixtures/egress/addresses.json', import.meta.url), 'utf8')) as { refused: Row[]; admitted: Row[] };

/** The data-driven egress corpus (spec/fixtures/egress/addresses.json), checked with an empty EGRESS_ALLOW and no network interfaces of the host (those are spec/platform/egress/egress-host.spec.ts). */
describe('egress corpus', () => {
  const policy = createEgressPolicy(undefined, { interfaces: () => ({}) });

  for (const row of corpus.refused) {
    it(`refuses ${row.address} as ${row.class}${row.embedding ? ` (${row.embedding} form of ${row.carried})` : ''}`, () => {
      const error = policy.checkHost(row.address);
      expect(error, `${row.address} should be refused`).to.be.instanceOf(EgressDeniedError);
      expect(error!.code).to.equal('EGRESS_DENIED');
      expect(error!.addressClass).to.equal(row.class);
      if (row.embedding) expect(error!.message).to.include(`(${row.embedding} form of ${row.carried})`);
      else expect(error!.message).not.to.include(' form of ');
      expect(error!.message).to.match(/; add it to EGRESS_ALLOW to permit it$/);
    });
  }

  for (const row of corpus.admitted) {
    it(`admits ${row.address}${row.why ? ` (${row.why})` : ''}`, () => {
      expect(policy.checkHost(row.address)).to.equal(null);
    });
  }

  it('is admitted again when EGRESS_ALLOW lists the refused form', () => {
    const allowing = createEgressPolicy(
      parseEgressAllow('2001::/32,64:ff9b:1::/48,192.0.2.0/24,2001:db8::/32,::ffff:0:0:0/96'),
      { interfaces: () => ({}) },
    );
    for (const address of ['2001:0:4136:e378:8000:63bf:80ff:fffe', '64:ff9b:1::a00:1', '192.0.2.1', '2001:db8::1', '::ffff:0:7f00:1']) {
      expect(allowing.checkHost(address), address).to.equal(null);
    }
  });
});

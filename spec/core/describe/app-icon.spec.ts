import { expect } from 'chai';
import { initials, isPlainSvg, monogramSvg } from '../../../engine/core/describe/app-icon.ts';

describe('app icons (core/describe/app-icon.ts)', () => {
  it('a monogram has the initials, the name as its title, escaped, and the same colour every time', () => {
    expect(initials('Acme CRM')).to.equal('AC');
    expect(initials('slack')).to.equal('SL');
    const svg = monogramSvg('R&D <Tools>');
    expect(svg).to.include('<title>R&#38;D &#60;Tools&#62;</title>');
    expect(svg).to.include('>RD</text>');
    expect(monogramSvg('Slack')).to.equal(monogramSvg('Slack'));
    expect(isPlainSvg(svg)).to.equal(true);
  });

  it('a plain SVG is an <svg> (after an XML declaration or comments) with nothing that runs or loads', () => {
    expect(isPlainSvg('<!-- from simple-icons, CC0-1.0 -->\n<svg fill="#000" viewBox="0 0 24 24"><path d="M0 0"/></svg>')).to.equal(true);
    expect(isPlainSvg('<?xml version="1.0"?><svg><path d="M0 0"/></svg>')).to.equal(true);
    for (const bad of [
      '<svg><script>alert(1)</script></svg>',
      '<svg><path onload="alert(1)" d="M0 0"/></svg>',
      '<svg><foreignObject><iframe/></foreignObject></svg>',
      '<svg><image href="https://tracker.example/p.png"/></svg>',
      '<svg><use xlink:href="#a"/></svg>',
      '<svg><style>@import url(https://x.example)</style></svg>',
      '<html><svg></svg></html>',
      'not an svg',
    ]) {
      expect(isPlainSvg(bad), bad).to.equal(false);
    }
  });

  it('reads the prolog in one pass: a file of comments that never reaches <svg> (up to the 32 KiB an icon may be) is refused, not backtracked into', () => {
    // 26 empty comments and a letter took 300 ms under the old expression, each one more doubling it; 4,600 of them fit in 32 KiB.
    const comments = '<!---->'.repeat(4_600);
    expect(isPlainSvg(`${comments}x`)).to.equal(false);
    expect(isPlainSvg(`${comments}<svg viewBox="0 0 24 24"></svg>`)).to.equal(true);
    expect(isPlainSvg(`<?xml version="1.0"?>\n<!-- a -->\n<!-- b --> <svg>`)).to.equal(true);
    expect(isPlainSvg('<!-- never closed <svg>')).to.equal(false);
    expect(isPlainSvg('<?xml version="1.0"?><svgx>')).to.equal(false);
  });
});

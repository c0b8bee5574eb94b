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
});

import { expect } from 'chai';
import { progressLine, showsProgress } from '../../../engine/platform/cli/progress.ts';

/** A stream that records what is written to it; a terminal or not. */
function stream(isTTY: boolean) {
  const written: string[] = [];
  return { isTTY, written, write: (text: string) => written.push(text) };
}

describe('progress lines (engine/platform/cli/progress.ts)', () => {
  it('are shown on a terminal only', () => {
    expect(showsProgress({ isTTY: true, write: () => true })).to.equal(true);
    expect(showsProgress({ isTTY: false, write: () => true })).to.equal(false);
    // A pipe or a file: Node leaves isTTY undefined.
    expect(showsProgress({ write: () => true })).to.equal(false);
  });

  it('rewrite one line in place at most every 100 ms, always the last figure, and clear it at the end', () => {
    const terminal = stream(true);
    let now = 0;
    const progress = progressLine('validate', 'files', terminal, () => now);
    progress.update(0, 3000);
    now = 50;
    progress.update(600, 3000); // too soon: not drawn
    now = 120;
    progress.update(1200, 3000);
    now = 130;
    progress.update(3000, 3000); // the last figure is drawn however soon
    progress.end();
    expect(terminal.written).to.deep.equal(['\rvalidate: 0/3000 files\x1b[K', '\rvalidate: 1200/3000 files\x1b[K', '\rvalidate: 3000/3000 files\x1b[K', '\r\x1b[K']);
  });

  it('draw again at once after end() (a line printed meanwhile), in the unit given', () => {
    const terminal = stream(true);
    const progress = progressLine('test:definitions', 'files', terminal, () => 0);
    progress.update(1, 10, 'case files run');
    progress.end();
    progress.update(2, 10, 'case files run');
    expect(terminal.written).to.deep.equal(['\rtest:definitions: 1/10 case files run\x1b[K', '\r\x1b[K', '\rtest:definitions: 2/10 case files run\x1b[K']);
  });

  it('write nothing when piped', () => {
    const pipe = stream(false);
    const progress = progressLine('validate', 'files', pipe, () => 0);
    progress.update(1, 2);
    progress.update(2, 2);
    progress.end();
    expect(pipe.written).to.deep.equal([]);
  });
});

import { expect } from 'chai';
import path from 'node:path';
import { formatFolder } from '../../../engine/authoring/format-folder.ts';
import { loadDefinitions } from '../../../engine/core/definitions/loader.ts';
import { AnalysisPool, analyseHere } from '../../../engine/core/definitions/parallel-analysis.ts';
import { sourceFile } from '../../../engine/core/definitions/source-files.ts';
import { DEFAULT_MAPPING_LIMITS } from '../../../engine/core/mapping/index.ts';
import { appFiles } from '../../../scripts/bench/scale-tree.ts';
import { ROOT } from '../../authoring/run-script.ts';

/** What the progress callbacks of validate, fmt and test:definitions are told: every figure, in order. */
function recorder() {
  const calls: [number, number][] = [];
  return { calls, progress: (done: number, total: number) => void calls.push([done, total]) };
}

function expectCounted(calls: [number, number][], total: number): void {
  expect(calls.length).to.be.greaterThan(1);
  for (const [, t] of calls) expect(t).to.equal(total);
  const done = calls.map(([d]) => d);
  expect(done).to.deep.equal([...done].sort((a, b) => a - b));
  expect(done.at(-1)).to.equal(total);
}

const sources = () => [...appFiles(1, 30), ...appFiles(2, 30)].map(([file, text]) => sourceFile(file, text));

describe('progress of loading and formatting (the figures the tools draw)', function () {
  this.timeout(120_000);

  it('a load counts every file of the folder analysed, up to all of them', async () => {
    const { calls, progress } = recorder();
    const result = await loadDefinitions(path.join(ROOT, 'definitions'), progress);
    expect(result.ok).to.equal(true);
    expectCounted(calls, result.stats.files);
  });

  it('files analysed on this thread and on worker threads are counted alike', async () => {
    const files = sources();
    const here: number[] = [];
    await analyseHere(files, DEFAULT_MAPPING_LIMITS, (count) => here.push(count));
    expect(here.reduce((a, b) => a + b, 0)).to.equal(files.length);
    // One worker, batches of 10: told per batch as the batches come back.
    const pool = new AnalysisPool(1, DEFAULT_MAPPING_LIMITS, undefined, 10);
    const batches: number[] = [];
    try {
      await pool.analyse(files, undefined, (count) => batches.push(count));
    } finally {
      await pool.close();
    }
    expect(batches.reduce((a, b) => a + b, 0)).to.equal(files.length);
    expect(batches.length).to.equal(Math.ceil(files.length / 10));
  });

  it('fmt --check counts every file it reads', async () => {
    const { calls, progress } = recorder();
    const result = await formatFolder(path.join(ROOT, 'definitions'), { write: false, progress });
    expect(result.folderProblem).to.equal(null);
    expectCounted(calls, calls[0]![1]);
    expect(calls[0]![1]).to.be.at.least(result.files.length);
  });
});

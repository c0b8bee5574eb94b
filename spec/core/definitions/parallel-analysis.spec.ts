import { expect } from 'chai';
import { DEFAULT_MAPPING_LIMITS } from '../../../engine/core/mapping/index.ts';
import { analyseFile } from '../../../engine/core/definitions/file-analysis.ts';
import fs from 'node:fs/promises';
import path from 'node:path';
import { DefinitionsLoader } from '../../../engine/core/definitions/loader.ts';
import { AnalysisPool, analyseFiles, PARALLEL_MIN_FILES } from '../../../engine/core/definitions/parallel-analysis.ts';
import { tempDir } from '../../helpers/temp-dir.ts';
import { sourceFile } from '../../../engine/core/definitions/source-files.ts';
import { appFiles, generateTree } from '../../../scripts/bench/scale-tree.ts';

/** What a loader keeps of an analysis, as plain data (positions included, found from the text). */
function observable(analysis: ReturnType<typeof analyseFile>) {
  return {
    file: analysis.source.file,
    place: analysis.place,
    definition: analysis.definition,
    names: analysis.names,
    problems: analysis.problems,
    expressions: [...analysis.expressions].map(([key, e]) => [key, e.source, e.at]),
  };
}

/** PARALLEL_MIN_FILES and more generated files, a few of them broken: a schema problem, a JSONata syntax error, broken YAML, a misplaced file. */
function largeTree() {
  const files = [];
  for (let app = 1; files.length < PARALLEL_MIN_FILES + 100; app++) for (const [file, text] of appFiles(app, 30)) files.push(sourceFile(file, text));
  files[40] = sourceFile(files[40]!.file, files[40]!.text.replace('method: GET', 'method: FETCH'));
  const mapped = files.findIndex((f, i) => i > 41 && f.text.includes('$lowercase(value)'));
  files[mapped] = sourceFile(files[mapped]!.file, files[mapped]!.text.replace('$lowercase(value)', '$lowercase(value'));
  files[1500] = sourceFile(files[1500]!.file, files[1500]!.text.replace('arguments:', 'arguments: [\n'));
  files.push(sourceFile('stray.yaml', 'id: x\n'));
  return files;
}

describe('analysing a large tree on several threads', () => {
  it('finds in worker threads exactly what one thread finds, problems and positions included', async function () {
    this.timeout(180_000);
    const files = largeTree();
    // Two workers taking batches from one queue: every file lands at its own index whichever worker took it.
    const { analyses: parallel, workersDone } = await analyseFiles(files, DEFAULT_MAPPING_LIMITS, 2);
    expect(workersDone).to.equal(2);
    const single = files.map((file) => analyseFile(file));
    expect(parallel.map(observable)).to.deep.equal(single.map(observable));
    const codes = parallel.flatMap((a) => a.problems.map((p) => `${p.file}:${p.line} ${p.code}`));
    expect(codes).to.have.length.greaterThanOrEqual(4);
    expect(codes.some((c) => c.includes('JSONATA_SYNTAX'))).to.equal(true);
    expect(codes.some((c) => c.includes('YAML_SYNTAX'))).to.equal(true);
  });

  it('analyses on this thread the batches of a worker that fails (here: out of memory as it starts), and finds the same', async function () {
    this.timeout(180_000);
    const files = largeTree();
    const { analyses, workersDone } = await analyseFiles(files, DEFAULT_MAPPING_LIMITS, 1, { oldGeneration: 1, youngGeneration: 1 });
    expect(workersDone).to.equal(0);
    expect(analyses.map(observable)).to.deep.equal(files.map((file) => observable(analyseFile(file))));
  });

  it('analyses a small tree on this thread alone', async () => {
    const files = appFiles(1, 3).map(([file, text]) => sourceFile(file, text));
    const { analyses, workersDone } = await analyseFiles(files, DEFAULT_MAPPING_LIMITS, 4);
    expect(workersDone).to.equal(0);
    expect(analyses.map(observable)).to.deep.equal(files.map((file) => observable(analyseFile(file))));
  });

  it('gives a pool whose worker failed while the files were being read no work, and analyses its share here', async function () {
    this.timeout(180_000);
    const files = largeTree();
    const pool = new AnalysisPool(1, DEFAULT_MAPPING_LIMITS, { oldGeneration: 1, youngGeneration: 1 });
    // Time for the worker to fail as it starts, as it would while a large tree is read.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    try {
      const { analyses, workersDone } = await pool.analyse(files);
      expect(workersDone).to.equal(0);
      expect(analyses.map(observable)).to.deep.equal(files.map((file) => observable(analyseFile(file))));
    } finally {
      await pool.close();
    }
  });

  it('loads a large folder cold on worker threads (started while the files are read) as on one thread: same hash, same problems', async function () {
    this.timeout(180_000);
    const { dir, cleanup } = await tempDir('igw-parallel-load-');
    try {
      await generateTree(dir, Math.ceil(PARALLEL_MIN_FILES / 33) + 2, 30);
      const broken = path.join(dir, 'app-0002/versions/1/actions/list-things-2.yaml');
      await fs.writeFile(broken, (await fs.readFile(broken, 'utf8')).replace('method: GET', 'method: FETCH'));
      const threaded = await new DefinitionsLoader(DEFAULT_MAPPING_LIMITS, 2).loadDirectory(dir);
      const single = await new DefinitionsLoader(DEFAULT_MAPPING_LIMITS, 1).loadDirectory(dir);
      expect(threaded.stats.files).to.be.greaterThanOrEqual(PARALLEL_MIN_FILES);
      expect(threaded.hash).to.equal(single.hash);
      expect(threaded.problems).to.deep.equal(single.problems);
      expect(threaded.problems.map((p) => `${p.file} ${p.code}`)).to.deep.equal(['app-0002/versions/1/actions/list-things-2.yaml SCHEMA_ENUM']);
    } finally {
      await cleanup();
    }
  });
});

import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { MappingLimits } from '../mapping/index.ts';
import { fromSummary, summariseFile, type FileAnalysis, type FileSummary } from './file-analysis.ts';
import type { SourceFile } from './source-files.ts';

/**
 * Below this many files a worker's start (loading the modules, compiling the
 * schemas: ~0.5 s) costs more than it saves.
 */
export const PARALLEL_MIN_FILES = 2_000;

/**
 * Analyses many files at once on every core: the files are dealt out to
 * `availableParallelism() - 1` worker threads and to this thread, which
 * takes its share while the workers run. Parsing YAML and compiling JSONata
 * are CPU work; a 33,000-file catalogue took ~2x longer on one core of two.
 *
 * `workersDone`: how many workers delivered. Falls back to this thread alone for few files, on one core, or when a
 * worker cannot start or fails (a worker running TypeScript needs the
 * process's own loader, `--import tsx`, which it inherits).
 */
export async function analyseFiles(
  sources: SourceFile[],
  limits: MappingLimits,
  workers = os.availableParallelism() - 1,
): Promise<{ analyses: FileAnalysis[]; workersDone: number }> {
  if (sources.length < PARALLEL_MIN_FILES || workers < 1) {
    return { analyses: sources.map((source) => fromSummary(source, summariseFile(source), limits)), workersDone: 0 };
  }
  const shares = Array.from({ length: workers + 1 }, (_, share) => sources.filter((_, i) => i % (workers + 1) === share));
  const [own, ...theirs] = shares as [SourceFile[], ...SourceFile[][]];
  // Each worker thread starts as it is made, so they run while this thread does its own share.
  const pending = theirs.map((share) => inWorker(share));
  const summaries = new Map<SourceFile, FileSummary>();
  own.forEach((source) => summaries.set(source, summariseFile(source)));
  const results = await Promise.all(pending);
  theirs.forEach((share, w) => {
    const result = results[w];
    share.forEach((source, i) => summaries.set(source, result ? result[i]! : summariseFile(source)));
  });
  return { analyses: sources.map((source) => fromSummary(source, summaries.get(source)!, limits)), workersDone: results.filter(Boolean).length };
}

/**
 * The worker's entry. A TypeScript worker needs tsx's loader registered in
 * its own thread first: a worker does not get the hooks `--import tsx`
 * registered in the main thread (privatenumber/tsx#354).
 */
const WORKER_MODULE = new URL(`./analysis-worker${path.extname(fileURLToPath(import.meta.url))}`, import.meta.url).href;
const WORKER_SCRIPT = WORKER_MODULE.endsWith('.ts')
  ? `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(WORKER_MODULE)}); });`
  : `import(${JSON.stringify(WORKER_MODULE)});`;

/** One worker's summaries of `sources`, or null when the worker failed (the caller analyses them itself). */
function inWorker(sources: SourceFile[]): Promise<FileSummary[] | null> {
  return new Promise((resolve) => {
    let worker: Worker;
    try {
      worker = new Worker(WORKER_SCRIPT, { eval: true, workerData: { sources } });
    } catch {
      return resolve(null);
    }
    worker.once('message', (summaries: FileSummary[]) => resolve(summaries));
    worker.once('error', () => resolve(null));
    worker.once('exit', () => resolve(null));
  });
}

import { Worker } from 'node:worker_threads';
import { workerScript } from '../../platform/worker-script.ts';
import type { MappingLimits } from '../mapping/index.ts';
import { failedSummary, fromSummary, summariseFile, type FileAnalysis, type FileSummary } from './file-analysis.ts';
import { problemAt } from './problems.ts';
import type { SourceFile } from './source-files.ts';

/**
 * Below this many files a worker's start (loading the modules, compiling the
 * schemas: ~0.5 s) costs more than it saves.
 */
export const PARALLEL_MIN_FILES = 2_000;

/** Files handed to a worker at a time: what its heap holds, besides its modules. */
export const BATCH_FILES = 250;

/**
 * A worker's heap, in MB. V8 grows a heap lazily, to several times what it
 * keeps: unbounded, each worker of a 33,000-file load grew to 160-250 MB
 * while holding ~30 MB. Bounded, it collects sooner (the young generation
 * most of all: the parsers' garbage dies young). A batch that needs more
 * (a huge file) stops the worker, and the batch is analysed on this thread.
 */
export const WORKER_HEAP_MB = { oldGeneration: 96, youngGeneration: 8 };

/**
 * Analyses many files on `workers` worker threads. This thread only deals
 * out batches and makes the summaries into analyses as they arrive:
 * analysing here too would grow this thread's heap, which holds the whole
 * loaded tree, with the parsers' garbage (a 33,000-file load peaked ~150 MB
 * higher that way). Workers take a batch at a time, so a fast one takes
 * more, and none holds more than a batch.
 *
 * `workersDone`: how many workers delivered every batch they took. Few files
 * or no workers: this thread alone. A worker that cannot start or fails
 * (a worker running TypeScript needs the process's own loader, see
 * WORKER_SCRIPT) leaves its batch to the others, or to this thread.
 */
export async function analyseFiles(
  sources: SourceFile[],
  limits: MappingLimits,
  workers: number,
  heapMb = WORKER_HEAP_MB,
  analysed?: Analysed,
  summarised?: Summarised,
): Promise<{ analyses: FileAnalysis[]; workersDone: number }> {
  if (sources.length < PARALLEL_MIN_FILES || workers < 1) return { analyses: await analyseHere(sources, limits, analysed, summarised), workersDone: 0 };
  const pool = new AnalysisPool(workers, limits, heapMb);
  try {
    return await pool.analyse(sources, undefined, analysed, summarised);
  } finally {
    await pool.close();
  }
}

/** Told how many more files were analysed, as they are: a tool's progress line (npm run validate). */
export type Analysed = (count: number) => void;

/** Told each file's summary as it is made (the loader keeps them for the on-disk cache, analysis-cache.ts). */
export type Summarised = (source: SourceFile, summary: FileSummary) => void;

/** How long this thread analyses before it lets the event loop turn (requests keep being served during a load). */
export const ANALYSIS_SLICE_MS = 8;

/**
 * The files analysed on this thread, in slices of ANALYSIS_SLICE_MS with a
 * turn of the event loop between them: one file is small (see
 * LARGE_FILE_BYTES), so no slice runs much longer.
 */
export async function analyseHere(sources: SourceFile[], limits: MappingLimits, analysed?: Analysed, summarised?: Summarised): Promise<FileAnalysis[]> {
  const analyses: FileAnalysis[] = [];
  let sliceStart = performance.now();
  for (const source of sources) {
    if (performance.now() - sliceStart > ANALYSIS_SLICE_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
    }
    const summary = summariseFile(source);
    summarised?.(source, summary);
    analyses.push(fromSummary(source, summary, limits));
    analysed?.(1);
  }
  return analyses;
}

/**
 * Files over this size are analysed on a worker thread of their own, never
 * on the thread that serves requests: parsing, validating and locating the
 * problems of a 300 KB file (20,000 keys) held it for over a second. The
 * bundled definitions are under 6 KB a file.
 */
export const LARGE_FILE_BYTES = 32 * 1024;

/** A worker's heap for large files: a parsed file's node tree is ~100x its text. */
export const LARGE_FILE_HEAP_MB = { oldGeneration: 256, youngGeneration: 16 };

/**
 * Analyses `sources` (small ones on this thread in slices, large ones one
 * at a time on a worker thread) for a load that has no pool of its own.
 * A large file the worker cannot analyse (it ran out of memory, or could not
 * start) is that file's ANALYSIS_FAILED problem, not work for this thread.
 */
export async function analyseAside(sources: SourceFile[], limits: MappingLimits, analysed?: Analysed, summarised?: Summarised): Promise<FileAnalysis[]> {
  const large = sources.filter((source) => source.text.length > LARGE_FILE_BYTES);
  const small = large.length ? sources.filter((source) => source.text.length <= LARGE_FILE_BYTES) : sources;
  const byFile = new Map<SourceFile, FileAnalysis>();
  if (large.length) {
    const pool = new AnalysisPool(1, limits, LARGE_FILE_HEAP_MB, 1);
    try {
      const stopped = (source: SourceFile): FileSummary => ({
        ...failedSummary(source, null),
        problems: [
          problemAt({ file: source.file, line: 1, column: 1 }, 'ANALYSIS_FAILED', `the file could not be analysed: its worker thread stopped (more than ${LARGE_FILE_HEAP_MB.oldGeneration} MB?); split or shorten the file`),
        ],
      });
      const { analyses } = await pool.analyse(large, (left) => left.map((source) => fromSummary(source, stopped(source), limits)), analysed, summarised);
      analyses.forEach((analysis) => byFile.set(analysis.source, analysis));
    } finally {
      await pool.close();
    }
  }
  for (const analysis of await analyseHere(small, limits, analysed, summarised)) byFile.set(analysis.source, analysis);
  return sources.map((source) => byFile.get(source)!);
}

/**
 * Worker threads started ahead of the files they will analyse: a worker
 * takes ~0.5 s to load its modules, which a cold start spends reading the
 * files instead of waiting (loader.ts starts the pool as soon as it has
 * listed the files). Analyses once, then is closed.
 */
export class AnalysisPool {
  private readonly workers: (StartedWorker | null)[];

  constructor(
    count: number,
    private readonly limits: MappingLimits,
    heapMb = WORKER_HEAP_MB,
    private readonly batchFiles = BATCH_FILES,
  ) {
    this.workers = Array.from({ length: count }, () => startWorker(heapMb));
  }

  /** `left`: what becomes of the batches failed workers left (by default, analysed on this thread). */
  async analyse(
    sources: SourceFile[],
    left: (sources: SourceFile[]) => FileAnalysis[] | Promise<FileAnalysis[]> = (batch) => analyseHere(batch, this.limits, analysed, summarised),
    analysed?: Analysed,
    summarised?: Summarised,
  ): Promise<{ analyses: FileAnalysis[]; workersDone: number }> {
    const analyses: FileAnalysis[] = new Array(sources.length);
    const batches: number[] = [];
    for (let start = 0; start < sources.length; start += this.batchFiles) batches.push(start);
    const done = await Promise.all(this.workers.map((started) => (started ? runBatches(started, sources, batches, analyses, this.limits, this.batchFiles, analysed, summarised) : false)));
    // Batches left by failed workers (or all, when none could start).
    for (const start of batches) {
      const end = Math.min(start + this.batchFiles, sources.length);
      (await left(sources.slice(start, end))).forEach((analysis, i) => (analyses[start + i] = analysis));
    }
    return { analyses, workersDone: done.filter(Boolean).length };
  }

  /** Stops the workers, and resolves once their threads (and heaps) are gone. */
  async close(): Promise<void> {
    await Promise.all(this.workers.map((started) => started?.worker.terminate()));
  }
}

/** The worker's entry (analysis-worker.ts, or .js compiled). */
const WORKER_SCRIPT = workerScript(import.meta.url, 'analysis-worker');

/** A worker and whether it has stopped: one that fails while the files are still being read has stopped before it is given work. */
interface StartedWorker {
  worker: Worker;
  exited: boolean;
}

/**
 * The smallest old generation a worker is given, in MB. With less (under ~4
 * MB), Node 22 and 24 cannot deserialize the worker's isolate and V8 aborts
 * the whole process ("Fatal JavaScript out of memory: GC during
 * deserialization") rather than failing the worker as Node 20 did.
 */
export const MIN_WORKER_OLD_GENERATION_MB = 8;

function startWorker(heapMb: typeof WORKER_HEAP_MB): StartedWorker | null {
  try {
    const worker = new Worker(WORKER_SCRIPT, {
      eval: true,
      resourceLimits: { maxOldGenerationSizeMb: Math.max(heapMb.oldGeneration, MIN_WORKER_OLD_GENERATION_MB), maxYoungGenerationSizeMb: heapMb.youngGeneration },
    });
    const started = { worker, exited: false };
    worker.on('error', () => undefined);
    worker.once('exit', () => (started.exited = true));
    return started;
  } catch {
    return null;
  }
}

/**
 * One worker taking batches (start offsets) from the shared queue until it is
 * empty. Resolves true when the worker summarised every batch it took; false
 * when it failed (before or while it worked), its unfinished batch put back in the queue.
 */
function runBatches(
  { worker, exited }: StartedWorker,
  sources: SourceFile[],
  queue: number[],
  into: FileAnalysis[],
  limits: MappingLimits,
  batchFiles: number,
  analysed?: Analysed,
  summarised?: Summarised,
): Promise<boolean> {
  return new Promise((resolve) => {
    let current: number | undefined;
    let settled = false;
    const settle = (ok: boolean) => {
      if (settled) return;
      settled = true;
      if (!ok && current !== undefined) queue.push(current);
      current = undefined;
      worker.removeAllListeners('message');
      resolve(ok);
    };
    const next = () => {
      current = queue.shift();
      if (current === undefined) return settle(true);
      worker.postMessage(sources.slice(current, current + batchFiles));
    };
    worker.on('message', (summaries: FileSummary[]) => {
      const start = current!;
      next();
      // Made into analyses as they arrive, while the workers go on: this thread is otherwise idle.
      summaries.forEach((summary, i) => {
        const source = sources[start + i]!;
        summarised?.(source, summary);
        into[start + i] = fromSummary(source, summary, limits);
      });
      analysed?.(summaries.length);
    });
    if (exited) return settle(false);
    worker.once('error', () => settle(false));
    worker.once('exit', () => settle(false));
    // A summary this thread cannot read back (structured clone's reader gave up): the worker is done for, its batch
    // goes to another, then to `left`; without this the load would wait for a message that never comes.
    worker.once('messageerror', () => settle(false));
    next();
  });
}

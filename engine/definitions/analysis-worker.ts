/**
 * A worker thread of parallel-analysis.ts: summarises the files it is given
 * (parse, validate, check expressions) and posts the summaries back.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { summariseFile } from './file-analysis.ts';
import type { SourceFile } from './source-files.ts';

const { sources } = workerData as { sources: SourceFile[] };
parentPort!.postMessage(sources.map((source) => summariseFile(source)));

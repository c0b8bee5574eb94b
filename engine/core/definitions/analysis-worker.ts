/**
 * A worker thread of parallel-analysis.ts: summarises each batch of files it
 * is sent (parse, validate, check expressions) and posts the summaries back.
 */
import { parentPort } from 'node:worker_threads';
import { summariseFile } from './file-analysis.ts';
import type { SourceFile } from './source-files.ts';

parentPort!.on('message', (sources: SourceFile[]) => {
  parentPort!.postMessage(sources.map((source) => summariseFile(source)));
});

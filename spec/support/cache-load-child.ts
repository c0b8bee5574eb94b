/**
 * A process using the on-disk analysis cache, for the specs that need more
 * than one (spec/core/definitions/analysis-cache.spec.ts):
 *
 *   load  <definitions> <cache root>   loads with the cache, waits for its writes, prints the stats as JSON
 *   write <definitions> <cache root>   analyses every file once, then writes every pack again and again
 *                                      (printing "writing" once it starts) until it is killed
 */
import { AnalysisCache } from '../../engine/core/definitions/analysis-cache.ts';
import { summariseFile } from '../../engine/core/definitions/file-analysis.ts';
import { topName } from '../../engine/core/definitions/layout.ts';
import { DefinitionsLoader } from '../../engine/core/definitions/loader.ts';
import { readSourceFiles, type SourceFile } from '../../engine/core/definitions/source-files.ts';

const [mode, dir, root] = process.argv.slice(2);
if (!dir || !root) throw new Error('usage: cache-load-child.ts load|write <definitions> <cache root>');
const cache = new AnalysisCache(root, undefined, (error, doing) => console.error(`cache error: ${doing}: ${String(error)}`));

if (mode === 'load') {
  const loader = new DefinitionsLoader(undefined, 1, cache);
  const result = await loader.loadDirectory(dir);
  await loader.cacheWritten();
  console.log(JSON.stringify({ ok: result.ok, hash: result.hash, stats: result.stats }));
} else if (mode === 'write') {
  const { files } = await readSourceFiles(dir);
  const made = new Map(files.map((source) => [source.file, { hash: source.hash, summary: summariseFile(source) }]));
  const tops = new Map<string, SourceFile[]>();
  for (const source of files) tops.set(topName(source.file), [...(tops.get(topName(source.file)) ?? []), source]);
  console.log('writing');
  for (;;) await cache.write(tops, made);
} else {
  throw new Error(`unknown mode ${mode}`);
}

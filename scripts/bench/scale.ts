/**
 * Definition scale (its own process, so its RSS is the loader's alone): a
 * generated tree (BENCH_SCALE_DIR, written by the orchestrator) is
 *
 * 1. read and loaded cold with DefinitionsLoader: validate, compile, check,
 *    build the snapshot; time and peak RSS;
 * 2. reloaded by the real DefinitionsRegistry after a one-file change,
 *    called directly (the rebuild alone): given the changed path as the
 *    watcher gives it (incremental), and without it (full, as on SIGHUP);
 * 3. reloaded through the real watcher (watchDefinitions): one file
 *    written, registry.current().hash polled until it changes; the time is
 *    split into the watcher's detection + the debounce (until reload() is
 *    called) and the rebuild (until the new snapshot serves).
 *
 * The cold load runs with the on-disk analysis cache (analysis-cache.ts) in
 * BENCH_SCALE_CACHE_DIR, empty: the gateway's first start. Its writes,
 * after the load, are timed apart.
 *
 * BENCH_SCALE_MODE=cold (with BENCH_SCALE_CACHE_DIR, or without it: the
 * cache off) runs the cold load alone, in a process of its own: a first
 * start (the cache folder empty), a restart finding the cache warm, or a
 * start without a cache.
 *
 * Env: BENCH_SCALE_DIR, BENCH_SCALE_APPS, BENCH_SCALE_ACTIONS (to name the
 * file it edits), BENCH_RELOADS (edits per kind, default 5),
 * BENCH_DEBOUNCE_MS (the watcher's debounce; default the gateway's),
 * BENCH_SCALE_CACHE_DIR, BENCH_SCALE_MODE.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { AnalysisCache } from '../../engine/core/definitions/analysis-cache.ts';
import { DefinitionsLoader, type LoadResult } from '../../engine/core/definitions/loader.ts';
import { DefinitionsRegistry } from '../../engine/core/definitions/registry.ts';
import { readSourceFiles } from '../../engine/core/definitions/source-files.ts';
import { RELOAD_DEBOUNCE_MS, watchDefinitions } from '../../engine/core/definitions/watch.ts';
import { createLogger } from '../../engine/platform/log/logger.ts';
import { runChildMain } from './child-main.ts';
import { actionFile, appName } from './scale-tree.ts';
import { median, round } from './stats.ts';

const mb = (bytes: number) => round(bytes / 1024 / 1024, 1);
const peakRss = () => process.resourceUsage().maxRSS * 1024;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** This process's user + system CPU time, in ms: steadier than the wall clock on a shared machine. */
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/** A cold load with a loader of its own (the cache in `cacheDir`, or none), timed: wall, CPU, memory after it. */
async function coldLoad(dir: string, cacheDir: string | undefined) {
  const loader = new DefinitionsLoader(undefined, undefined, cacheDir ? new AnalysisCache(cacheDir) : null);
  const rssBefore = process.memoryUsage().rss;
  const cpuBefore = cpuMs();
  const started = performance.now();
  const result = await loader.loadDirectory(dir);
  const totalMs = performance.now() - started;
  const loadCpuMs = cpuMs() - cpuBefore;
  if (!result.ok) throw new Error(`the generated tree does not load: ${result.problems.slice(0, 5).map((p) => `${p.file}:${p.line} ${p.code} ${p.message}`).join('; ')}`);
  const figures = {
    totalMs: round(totalMs, 0),
    cpuMs: round(loadCpuMs, 0),
    analysed: result.stats.analysed,
    cached: result.stats.cached,
    rssBeforeMb: mb(rssBefore),
    rssAfterLoadMb: mb(process.memoryUsage().rss),
    peakRssAfterLoadMb: mb(peakRss()),
    heapUsedAfterLoadMb: mb(process.memoryUsage().heapUsed),
  };
  // The cache's writes come after the load (the snapshot serves meanwhile): timed apart.
  const writeStarted = performance.now();
  await loader.cacheWritten();
  const cacheWrite = { writeMs: round(performance.now() - writeStarted, 0), peakRssAfterWriteMb: mb(peakRss()), cacheMb: cacheDir ? mb(await folderBytes(cacheDir)) : 0 };
  return { loader, result: result as Extract<LoadResult, { ok: true }>, figures, cacheWrite };
}

async function folderBytes(dir: string): Promise<number> {
  let bytes = 0;
  for (const entry of await fs.readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) bytes += (await fs.stat(path.join((entry as { parentPath?: string }).parentPath ?? entry.path, entry.name))).size;
  }
  return bytes;
}

/**
 * BENCH_SCALE_MODE=cold: the cold load alone (a first start with the cache
 * empty, a restart with it warm, or a start with it off), and the cache's
 * writes after it (`write`: null with the cache off).
 */
async function coldOnly() {
  const dir = process.env.BENCH_SCALE_DIR;
  if (!dir) throw new Error('BENCH_SCALE_DIR is not set');
  const cacheDir = process.env.BENCH_SCALE_CACHE_DIR;
  const { figures, cacheWrite } = await coldLoad(dir, cacheDir);
  return { ...figures, write: cacheDir ? cacheWrite : null };
}
export type ColdResult = Awaited<ReturnType<typeof coldOnly>>;

async function main() {
  const dir = process.env.BENCH_SCALE_DIR;
  if (!dir) throw new Error('BENCH_SCALE_DIR is not set');
  const apps = Number(process.env.BENCH_SCALE_APPS ?? 1000);
  const reloads = Number(process.env.BENCH_RELOADS ?? 5);
  const debounceMs = Number(process.env.BENCH_DEBOUNCE_MS ?? RELOAD_DEBOUNCE_MS);
  const logger = createLogger('silent');
  const rssBefore = process.memoryUsage().rss;

  // 1. Cold: DefinitionsLoader.loadDirectory, as the gateway starts the first time (the cache empty; reading, then analysing in parallel when the tree is large).
  const { loader, result: cold, figures, cacheWrite } = await coldLoad(dir, process.env.BENCH_SCALE_CACHE_DIR);
  const totalMs = figures.totalMs;
  let actionCount = 0;
  for (const app of cold.snapshot.apps.values()) for (const v of app.versions.values()) actionCount += v.actions.size;
  const rssAfterLoad = figures.rssAfterLoadMb;
  const peakAfterLoad = figures.peakRssAfterLoadMb;
  const heapAfterLoad = figures.heapUsedAfterLoadMb;
  let started: number;
  // The reading stage alone, measured again after the load (the page cache is as warm for both).
  started = performance.now();
  const { files } = await readSourceFiles(dir);
  const readMs = performance.now() - started;

  // 2. The registry with that loader (its cache warm, as in a running gateway); a load with nothing changed, then one-file changes.
  const registry = new DefinitionsRegistry(dir, logger, loader);
  started = performance.now();
  await registry.reload('start');
  const unchangedMs = performance.now() - started;
  const app = appName(Math.ceil(apps / 2));
  let edit = 0;
  const editOne = async () => {
    const [file, text] = actionFile(app, 2, ++edit);
    await fs.writeFile(path.join(dir, file), text);
    return path.join(dir, file);
  };
  const directReloads = async (incremental: boolean) => {
    const times: number[] = [];
    for (let i = 0; i < reloads; i++) {
      const file = await editOne();
      const before = registry.current().hash;
      started = performance.now();
      const result = await registry.reload('bench edit', incremental ? [file] : undefined);
      times.push(performance.now() - started);
      if (!result.ok || registry.current().hash === before) throw new Error('a direct reload did not serve the edit');
      if (result.stats.incremental !== incremental) throw new Error(`a direct reload was ${result.stats.incremental ? '' : 'not '}incremental`);
    }
    return times;
  };
  const direct = await directReloads(true);
  const directFull = await directReloads(false);

  // 3. Through the watcher.
  started = performance.now();
  const stopWatching = await watchDefinitions(registry, logger, debounceMs);
  const watcherReadyMs = performance.now() - started;
  let reloadCalledAt = 0;
  let watchedFull = 0;
  const reload = registry.reload.bind(registry);
  registry.reload = (reason: string, changed?: readonly string[]) => {
    reloadCalledAt = performance.now();
    if (!changed) watchedFull++;
    return reload(reason, changed);
  };
  const watched: { totalMs: number; detectAndDebounceMs: number; rebuildMs: number }[] = [];
  for (let i = 0; i < reloads; i++) {
    await sleep(300);
    const before = registry.current().hash;
    reloadCalledAt = 0;
    const written = performance.now();
    await editOne();
    const deadline = written + 120_000;
    while (registry.current().hash === before && performance.now() < deadline) await sleep(1);
    const served = performance.now();
    if (registry.current().hash === before) throw new Error('the watcher did not reload within 120 s');
    watched.push({ totalMs: served - written, detectAndDebounceMs: reloadCalledAt - written, rebuildMs: served - reloadCalledAt });
  }
  await stopWatching();

  return {
    files: files.length,
    apps: cold.snapshot.apps.size,
    actions: actionCount,
    cold: { readMs: round(readMs, 0), validateCompileBuildMs: round(totalMs - readMs, 0), totalMs: round(totalMs, 0), cpuMs: figures.cpuMs, analysed: figures.analysed, cached: figures.cached },
    cacheWrite,
    memory: { rssBeforeMb: mb(rssBefore), rssAfterLoadMb: rssAfterLoad, peakRssAfterLoadMb: peakAfterLoad, heapUsedAfterLoadMb: heapAfterLoad, peakRssMb: mb(peakRss()) },
    reload: {
      unchangedMs: round(unchangedMs, 0),
      directOneFileMs: round(median(direct), 1),
      directOneFileAllMs: direct.map((ms) => round(ms, 1)),
      directFullOneFileMs: round(median(directFull), 1),
      directFullOneFileAllMs: directFull.map((ms) => round(ms, 1)),
      watcherReadyMs: round(watcherReadyMs, 0),
      debounceMs,
      watchedTotalMs: round(median(watched.map((w) => w.totalMs)), 1),
      watchedDetectAndDebounceMs: round(median(watched.map((w) => w.detectAndDebounceMs)), 1),
      watchedDetectMs: round(median(watched.map((w) => w.detectAndDebounceMs)) - debounceMs, 1),
      watchedRebuildMs: round(median(watched.map((w) => w.rebuildMs)), 1),
      /** Watched reloads that read every file (the watcher gave no paths); 0 when all were incremental. */
      watchedFull,
      watched: watched.map((w) => ({ totalMs: round(w.totalMs, 1), detectAndDebounceMs: round(w.detectAndDebounceMs, 1), rebuildMs: round(w.rebuildMs, 1) })),
    },
  };
}

export type ScaleResult = Awaited<ReturnType<typeof main>>;
if (process.env.BENCH_SCALE_MODE === 'cold') runChildMain(coldOnly);
else runChildMain(main);

/**
 * The embedded store at scale (its own process, so RSS and heap are the
 * store's alone), on the files store-seed.ts wrote (BENCH_STORE_DIR):
 *
 * 1. open: openEmbeddedStore as the gateway does (NeDB reads every file into
 *    memory, builds the indexes and rewrites each file one line per record,
 *    so the renewals the seed appended are compacted away); time, file sizes
 *    and lines before and after, RSS and heap after a GC;
 * 2. reads as the engine runs them: a connection by id and company (every
 *    run), an end user by externalKey (POST /v1/users), the first page of a
 *    list endpoint (find sorted by createdOn, limit 100, and count, as
 *    list-page.ts does), the installations using a connection;
 * 3. writes: a token renewal (updateOne of a connection, fsynced before it
 *    resolves) and a new end user;
 * 4. compaction of each grown file through the store's own compact() (the
 *    schedule's), with the longest the event loop went without a turn
 *    meanwhile (a 1 ms timer's largest gap) and perf_hooks'
 *    monitorEventLoopDelay maximum.
 *
 * 5. a second open of the now compacted files (a restart after a clean stop).
 *
 * Env: BENCH_STORE_DIR, BENCH_STORE_SAMPLES (per read and write, default 1000 / 200).
 */
import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { newId } from '../../engine/platform/ids.ts';
import { openEmbeddedStore, type EmbeddedStore } from '../../engine/platform/store/embedded/nedb-store.ts';
import type { ConnectionRecord, EndUserRecord } from '../../engine/platform/store/records.ts';
import { runChildMain } from './child-main.ts';
import { BENCH_COMPANY_ID } from './store-company.ts';
import { percentile, round } from './stats.ts';

const mb = (bytes: number) => round(bytes / 1024 / 1024, 1);
const cpuMsSince = (start: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(start);
  return Math.round((used.user + used.system) / 1000);
};
const gc = () => (globalThis as { gc?: () => void }).gc?.();

export interface FileFigures {
  collection: string;
  lines: number;
  mb: number;
}

export interface Latency {
  name: string;
  samples: number;
  p50Ms: number;
  p99Ms: number;
}

export interface CompactionFigures {
  collection: string;
  records: number;
  staleLines: number;
  durationMs: number;
  /** The longest gap between turns of a 1 ms timer while it ran: how long a request waited at worst. */
  longestStallMs: number;
  /** perf_hooks monitorEventLoopDelay's maximum over the same time. */
  maxDelayMs: number;
  /** CPU (user + system) the process used meanwhile: on a busy machine the wall times stretch, this much less. */
  cpuMs: number;
}

export interface StoreResult {
  records: { endUsers: number; connections: number; installations: number };
  filesBefore: FileFigures[];
  filesAfterOpen: FileFigures[];
  openMs: number;
  openCpuMs: number;
  /** A second open of the same files, now compacted (a restart after a clean stop). */
  reopenMs: number;
  reopenCpuMs: number;
  memory: { rssBeforeMb: number; rssAfterOpenMb: number; heapUsedAfterOpenMb: number; peakRssMb: number };
  /** os.loadavg() at the start and the end: on a shared machine, every time above is stretched by the others' work. */
  loadAverage: { start: number[]; end: number[] };
  reads: Latency[];
  writes: Latency[];
  compactions: CompactionFigures[];
}

async function files(dir: string): Promise<FileFigures[]> {
  const out: FileFigures[] = [];
  for (const collection of ['endUsers', 'connections', 'installations']) {
    const file = path.join(dir, 'store', `${collection}.db`);
    // Streamed, not read whole: a 150 MB string would stay in the RSS the open is measured against.
    let lines = 0;
    for await (const chunk of createReadStream(file)) {
      for (let i = (chunk as Buffer).indexOf(10); i !== -1; i = (chunk as Buffer).indexOf(10, i + 1)) lines++;
    }
    out.push({ collection, lines, mb: mb((await fs.stat(file)).size) });
  }
  return out;
}

async function time(name: string, samples: number, run: (i: number) => Promise<unknown>): Promise<Latency> {
  const took: number[] = [];
  for (let i = 0; i < samples; i++) {
    const started = performance.now();
    await run(i);
    took.push(performance.now() - started);
  }
  took.sort((a, b) => a - b);
  return { name, samples, p50Ms: round(percentile(took, 50), 3), p99Ms: round(percentile(took, 99), 3) };
}

/** Runs `work` while a 1 ms timer and monitorEventLoopDelay watch the event loop. */
async function watchingTheLoop<T>(work: () => Promise<T>): Promise<{ result: T; durationMs: number; longestStallMs: number; maxDelayMs: number; cpuMs: number }> {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  let last = performance.now();
  let longest = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 1);
  histogram.enable();
  const started = performance.now();
  const cpu = process.cpuUsage();
  const result = await work();
  const durationMs = performance.now() - started;
  const cpuMs = cpuMsSince(cpu);
  await new Promise((resolve) => setTimeout(resolve, 5));
  clearInterval(timer);
  histogram.disable();
  return { result, durationMs: round(durationMs, 1), longestStallMs: round(longest, 1), maxDelayMs: round(histogram.max / 1e6, 1), cpuMs };
}

async function main(): Promise<StoreResult> {
  const dataDir = process.env.BENCH_STORE_DIR;
  if (!dataDir) throw new Error('BENCH_STORE_DIR is not set');
  const readSamples = Number(process.env.BENCH_STORE_SAMPLES ?? 1000);
  const writeSamples = Math.max(20, Math.round(readSamples / 5));

  const loadAtStart = os.loadavg().map((v) => round(v, 1));
  const filesBefore = await files(dataDir);
  gc();
  const rssBefore = process.memoryUsage().rss;
  let started = performance.now();
  let cpu = process.cpuUsage();
  let store: EmbeddedStore = await openEmbeddedStore(dataDir, { compactionIntervalMs: 0 });
  const openMs = Math.round(performance.now() - started);
  const openCpuMs = cpuMsSince(cpu);
  gc();
  const afterOpen = process.memoryUsage();
  const filesAfterOpen = await files(dataDir);

  const records = {
    endUsers: await store.endUsers.count({ companyId: BENCH_COMPANY_ID }),
    connections: await store.connections.count({ companyId: BENCH_COMPANY_ID }),
    installations: await store.installations.count({ companyId: BENCH_COMPANY_ID }),
  };
  const connections = await store.connections.find({ companyId: BENCH_COMPANY_ID }, { sort: { createdOn: 1 }, limit: readSamples });
  const endUsers = await store.endUsers.find({ companyId: BENCH_COMPANY_ID }, { sort: { createdOn: 1 }, limit: readSamples });
  const pick = <T>(list: T[], i: number) => list[(i * 7919) % list.length]!;

  const reads = [
    await time('connection by id and company (every run)', readSamples, (i) => store.connections.findOne({ id: pick(connections, i).id, companyId: BENCH_COMPANY_ID })),
    await time('end user by externalKey (POST /v1/users)', readSamples, (i) => store.endUsers.findOne({ externalKey: pick(endUsers, i).externalKey! })),
    await time('list page: find sorted by createdOn, limit 100, + count (GET /v1/connections)', 20, () =>
      Promise.all([store.connections.find({ companyId: BENCH_COMPANY_ID }, { sort: { createdOn: 1, id: 1 }, limit: 100 }), store.connections.count({ companyId: BENCH_COMPANY_ID })]),
    ),
    await time('installations using a connection (GET /v1/connections/{id})', 20, (i) => store.installations.find({ companyId: BENCH_COMPANY_ID, 'apps.connectionId': pick(connections, i).id }, { limit: 10 })),
  ];

  const writes = [
    await time('token renewal: updateOne of a connection, fsynced', writeSamples, (i) => {
      const c: ConnectionRecord = pick(connections, i);
      return store.connections.updateOne({ id: c.id, companyId: BENCH_COMPANY_ID }, { $set: { credentials: c.credentials, credentialsVersion: c.credentialsVersion + 1 + i, updatedOn: new Date() } });
    }),
    await time('new end user: insert, fsynced', writeSamples, (i) => {
      const now = new Date();
      const user: EndUserRecord = { id: newId('eu'), companyId: BENCH_COMPANY_ID, externalId: `new-${i}`, externalKey: `${BENCH_COMPANY_ID}:new-${i}`, name: null, email: null, isTestUser: false, metadata: {}, createdOn: now, updatedOn: now };
      return store.endUsers.insert(user);
    }),
  ];

  // Every file the writes grew: the compaction the schedule runs, watched.
  const watched = await watchingTheLoop(() => store.compact({ all: true }));
  const compactions: CompactionFigures[] = [];
  // compact() runs the grown files one after the other; each is watched alone below for its own stall.
  for (const collection of ['connections', 'endUsers', 'installations'] as const) {
    // One update leaves one stale line: the rewrite is the whole file all the same (what the schedule pays when the file is half stale).
    const first = collection === 'connections' ? connections[0]! : collection === 'endUsers' ? endUsers[0]! : (await store.installations.findOne({ companyId: BENCH_COMPANY_ID }))!;
    await store[collection].updateOne({ id: first.id }, { $set: { updatedOn: new Date() } });
    const one = await watchingTheLoop(() => store.compact({ all: true }));
    const report = one.result.find((r) => r.collection === collection)!;
    compactions.push({ collection, records: report.records, staleLines: report.staleLines, durationMs: one.durationMs, longestStallMs: one.longestStallMs, maxDelayMs: one.maxDelayMs, cpuMs: one.cpuMs });
  }
  if (watched.result.length === 0) throw new Error('the writes grew no file: compact() rewrote nothing');
  const peakRssMb = mb(process.resourceUsage().maxRSS * 1024);
  await store.close();
  // The first store's records let go before the second reads them all again.
  connections.length = 0;
  endUsers.length = 0;
  store = null as unknown as EmbeddedStore;
  gc();

  started = performance.now();
  cpu = process.cpuUsage();
  const reopened = await openEmbeddedStore(dataDir, { compactionIntervalMs: 0 });
  const reopenMs = Math.round(performance.now() - started);
  const reopenCpuMs = cpuMsSince(cpu);
  await reopened.close();

  return {
    records,
    filesBefore,
    filesAfterOpen,
    openMs,
    openCpuMs,
    reopenMs,
    reopenCpuMs,
    loadAverage: { start: loadAtStart, end: os.loadavg().map((v) => round(v, 1)) },
    memory: { rssBeforeMb: mb(rssBefore), rssAfterOpenMb: mb(afterOpen.rss), heapUsedAfterOpenMb: mb(afterOpen.heapUsed), peakRssMb },
    reads,
    writes,
    compactions,
  };
}

runChildMain(main);

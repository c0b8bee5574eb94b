import { expect } from 'chai';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { CompactionReport } from '../../../engine/platform/store/embedded/compaction.ts';
import { openEmbeddedStore, type EmbeddedStore } from '../../../engine/platform/store/embedded/nedb-store.ts';
import type { AppConfigurationRecord } from '../../../engine/platform/store/index.ts';
import { tempDir } from '../../helpers/temp-dir.ts';
import { eventually } from '../../support/eventually.ts';

const UPDATES = 5_000;

function configuration(id: string, companyId: string): AppConfigurationRecord {
  const now = new Date('2026-01-01T00:00:00Z');
  return {
    id,
    companyId,
    appSlug: 'github',
    configKey: `${companyId}:github`,
    clientId: 'client-0',
    redirectUri: null,
    exchangeUrl: null,
    secrets: { v: 1, kid: 'k1', iv: 'aXY=', tag: 'dGFn', data: 'ZGF0YQ==' },
    hasClientSecret: true,
    hasExchangeSecret: false,
    createdOn: now,
    updatedOn: now,
  };
}

/** The file as it is on disk: its lines, those that are records (`_id`), and the last line of a record by id. */
async function onDisk(dir: string, collection: string) {
  const text = await fs.readFile(path.join(dir, 'store', `${collection}.db`), 'utf8');
  const lines = text.split('\n').filter((line) => line !== '');
  const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((doc) => typeof doc._id === 'string');
  return {
    lines: lines.length,
    recordLines: records.length,
    indexLines: lines.length - records.length,
    last: (id: string) => records.filter((doc) => doc._id === id).at(-1),
    lastId: () => records.at(-1)?._id as string | undefined,
  };
}

async function updateMany(store: EmbeddedStore, id: string, times: number): Promise<void> {
  for (let i = 1; i <= times; i++) {
    expect(await store.appConfigurations.updateOne({ id }, { $set: { clientId: `client-${i}` } })).to.equal(true);
  }
}

describe('the embedded store compacts its files', function () {
  this.timeout(120_000);
  let dir: string;
  let cleanup: () => Promise<void>;
  const open: EmbeddedStore[] = [];
  beforeEach(async () => {
    ({ dir, cleanup } = await tempDir());
  });
  afterEach(async () => {
    for (const store of open.splice(0)) await store.close().catch(() => {});
    await cleanup();
  });
  async function openStore(options: Parameters<typeof openEmbeddedStore>[1]): Promise<EmbeddedStore> {
    const store = await openEmbeddedStore(dir, options);
    open.push(store);
    return store;
  }

  it(`without a schedule (STORE_COMPACTION_INTERVAL_MS=0), ${UPDATES} updates of one record leave ${UPDATES} more lines in its file`, async () => {
    const store = await openStore({ compactionIntervalMs: 0 });
    await store.appConfigurations.insert(configuration('acf_1', 'cmp_1'));
    await updateMany(store, 'acf_1', UPDATES);
    const file = await onDisk(dir, 'appConfigurations');
    expect(file.recordLines).to.equal(UPDATES + 1);
  });

  it(`with a schedule, ${UPDATES} updates of one record end, once it fires, as one line per record, the last update's`, async () => {
    const compacted: CompactionReport[] = [];
    const store = await openStore({ compactionIntervalMs: 250, onCompacted: (report) => compacted.push(report) });
    await store.appConfigurations.insert(configuration('acf_1', 'cmp_1'));
    await store.appConfigurations.insert(configuration('acf_2', 'cmp_2'));
    await updateMany(store, 'acf_1', UPDATES);
    await eventually(() => onDisk(dir, 'appConfigurations'), (file) => file.recordLines === 2, 'appConfigurations.db has one line per record');
    const file = await onDisk(dir, 'appConfigurations');
    // Two records, and one line for each index (companyId, configKey) NeDB keeps in the file.
    expect(file.lines).to.equal(2 + 2);
    expect(file.last('acf_1')).to.include({ clientId: `client-${UPDATES}` });
    // The schedule rewrote the file while the updates ran, each time it was at least half stale, never for less.
    const rewrites = compacted.filter((report) => report.collection === 'appConfigurations');
    expect(rewrites.length).to.be.greaterThan(1);
    for (const report of rewrites) expect(report.staleLines).to.be.at.least(report.records);
    expect(compacted.at(-1)).to.include({ collection: 'appConfigurations', records: 2 });
  });

  it('compacts on start: a file left long by a process that never closed is one line per record once opened', async () => {
    const first = await openEmbeddedStore(dir, { compactionIntervalMs: 0 });
    await first.appConfigurations.insert(configuration('acf_1', 'cmp_1'));
    await updateMany(first, 'acf_1', 1_000);
    // No close: the process "died" here (a close compacts).
    expect((await onDisk(dir, 'appConfigurations')).recordLines).to.equal(1_001);

    const second = await openStore({ compactionIntervalMs: 0 });
    const file = await onDisk(dir, 'appConfigurations');
    expect(file.recordLines).to.equal(1);
    expect(file.last('acf_1')).to.include({ clientId: 'client-1000' });
    expect(await second.appConfigurations.findOne({ id: 'acf_1' })).to.include({ clientId: 'client-1000' });
  });

  it('rewrites only the files with stale lines', async () => {
    const store = await openStore({ compactionIntervalMs: 0 });
    const endUser = { id: 'eu_1', companyId: 'cmp_1', externalId: null, name: null, email: null, isTestUser: false, metadata: {}, createdOn: new Date(), updatedOn: new Date() };
    await store.endUsers.insert(endUser);
    await store.endUsers.updateOne({ id: 'eu_1' }, { $set: { name: 'Ada' } });
    await store.appConfigurations.insert(configuration('acf_1', 'cmp_1'));
    await store.appConfigurations.updateOne({ id: 'acf_1' }, { $set: { clientId: 'x' } });
    expect((await store.compact()).map((report) => report.collection).sort()).to.deep.equal(['appConfigurations', 'endUsers']);
    const before = await fs.stat(path.join(dir, 'store', 'endUsers.db'));
    await store.appConfigurations.updateOne({ id: 'acf_1' }, { $set: { clientId: 'y' } });
    expect((await store.compact()).map((report) => report.collection)).to.deep.equal(['appConfigurations']);
    expect(await store.compact()).to.deep.equal([]);
    const after = await fs.stat(path.join(dir, 'store', 'endUsers.db'));
    expect(after.ino, 'endUsers.db was not replaced').to.equal(before.ino);
  });

  it('waits until a file is at least half stale lines: 50 records and 10 updates stay, 50 updates are rewritten; inserts alone never are', async () => {
    const store = await openStore({ compactionIntervalMs: 0 });
    for (let i = 0; i < 50; i++) await store.appConfigurations.insert(configuration(`acf_${i}`, `cmp_${i}`));
    expect(await store.compact(), 'inserts leave nothing stale').to.deep.equal([]);
    expect((await onDisk(dir, 'appConfigurations')).recordLines).to.equal(50);
    for (let i = 0; i < 10; i++) await store.appConfigurations.updateOne({ id: `acf_${i}` }, { $set: { clientId: 'renewed' } });
    expect(await store.compact()).to.deep.equal([]);
    expect((await onDisk(dir, 'appConfigurations')).recordLines).to.equal(60);
    for (let i = 10; i < 50; i++) await store.appConfigurations.updateOne({ id: `acf_${i}` }, { $set: { clientId: 'renewed' } });
    const [report] = await store.compact();
    expect(report).to.include({ collection: 'appConfigurations', staleLines: 50, records: 50 });
    expect((await onDisk(dir, 'appConfigurations')).recordLines).to.equal(50);
    for (let i = 50; i < 200; i++) await store.appConfigurations.insert(configuration(`acf_${i}`, `cmp_${i}`));
    expect(await store.compact()).to.deep.equal([]);
    // Deleting the 150 inserted leaves each one's line and its tombstone stale: 300 lines, 50 records.
    await store.appConfigurations.deleteMany({ clientId: 'client-0' });
    expect((await store.compact()).map((r) => [r.staleLines, r.records])).to.deep.equal([[300, 50]]);
  });

  it('on close, rewrites every file with a stale line, and leaves the others', async () => {
    const store = await openEmbeddedStore(dir, { compactionIntervalMs: 0 });
    for (let i = 0; i < 50; i++) await store.appConfigurations.insert(configuration(`acf_${i}`, `cmp_${i}`));
    await store.appConfigurations.updateOne({ id: 'acf_0' }, { $set: { clientId: 'last' } });
    const untouched = await fs.stat(path.join(dir, 'store', 'endUsers.db'));
    await store.close();
    const file = await onDisk(dir, 'appConfigurations');
    expect(file.recordLines).to.equal(50);
    expect(file.last('acf_0')).to.include({ clientId: 'last' });
    expect((await fs.stat(path.join(dir, 'store', 'endUsers.db'))).ino).to.equal(untouched.ino);
  });

  it('reports a compaction that fails, keeps serving and keeps every write, and compacts at the next tick once it can', async () => {
    const failures: { collection: string; error: unknown }[] = [];
    const store = await openStore({ compactionIntervalMs: 200, onFailed: (collection, error) => failures.push({ collection, error }) });
    await store.appConfigurations.insert(configuration('acf_1', 'cmp_1'));
    // NeDB rewrites into `<file>~`; a directory in its place makes the rewrite fail (EISDIR), as a full disk would.
    const temp = path.join(dir, 'store', 'appConfigurations.db~');
    await fs.mkdir(temp);
    await updateMany(store, 'acf_1', 20);
    await eventually(async () => failures.length, (n) => n > 0, 'a failed compaction is reported');
    expect(failures[0]!.collection).to.equal('appConfigurations');
    expect(String((failures[0]!.error as Error).message ?? failures[0]!.error)).to.match(/EISDIR|directory/);
    expect(await store.appConfigurations.updateOne({ id: 'acf_1' }, { $set: { clientId: 'after-failure' } })).to.equal(true);
    expect((await onDisk(dir, 'appConfigurations')).last('acf_1')).to.include({ clientId: 'after-failure' });

    await fs.rmdir(temp);
    await eventually(() => onDisk(dir, 'appConfigurations'), (file) => file.recordLines === 1, 'compacted once the rewrite can be written');
    expect((await onDisk(dir, 'appConfigurations')).last('acf_1')).to.include({ clientId: 'after-failure' });
  });
});

import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { AnalysisCache, PACK_MAGIC, PACK_MAGIC_V8, PRUNE_AFTER_MS, packName } from '../../../engine/core/definitions/analysis-cache.ts';
import { engineKey, engineKeyOf } from '../../../engine/core/definitions/engine-key.ts';
import { DefinitionsLoader, type LoadResult } from '../../../engine/core/definitions/loader.ts';
import { PARALLEL_MIN_FILES } from '../../../engine/core/definitions/parallel-analysis.ts';
import { summariseFile } from '../../../engine/core/definitions/file-analysis.ts';
import { topName } from '../../../engine/core/definitions/layout.ts';
import { sourceFile } from '../../../engine/core/definitions/source-files.ts';
import { DefinitionsRegistry } from '../../../engine/core/definitions/registry.ts';
import type { CompiledExpression } from '../../../engine/core/definitions/expressions.ts';
import { ParsedFile } from '../../../engine/core/definitions/parsed-file.ts';
import { createLogger } from '../../../engine/platform/log/logger.ts';
import { PACKAGE_ROOT } from '../../../engine/platform/package-root.ts';
import { generateTree } from '../../../scripts/bench/scale-tree.ts';
import { copyValid, INVALID, materialiseCase, tempDir } from '../../support/definition-fixtures.ts';

const BUNDLED = path.join(PACKAGE_ROOT, 'definitions');
const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../support/cache-load-child.ts');
const ACME_ACTION = 'acme/versions/1/actions/list-lists.yaml';

/**
 * What a user of a load sees, the snapshot's load time aside: its problems
 * and warnings, and the snapshot as plain data, each compiled expression as
 * its text and the place its errors name, each parsed file as its path (its
 * `yaml` node tree, built only when a position was asked for, holds closures
 * no two loads share).
 */
function seen(result: LoadResult) {
  return {
    ok: result.ok,
    hash: result.hash,
    problems: result.problems,
    warnings: result.warnings,
    snapshot: plainData(result.snapshot && { ...result.snapshot, loadedAt: null }),
  };
}

function plainData(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof ParsedFile) return { parsedFile: value.file };
  if (value instanceof Map) return { map: [...value].map(([key, item]) => [key, plainData(item)]) };
  if (Array.isArray(value)) return value.map(plainData);
  if (value.constructor?.name === 'LazyExpression') {
    const expression = value as CompiledExpression;
    return { expression: expression.source, at: expression.at };
  }
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, plainData(item)]));
}

/** A load with a fresh loader (a restart), waiting for its cache writes. */
async function restart(dir: string, cache: AnalysisCache | null): Promise<LoadResult> {
  const loader = new DefinitionsLoader(undefined, 1, cache);
  const result = await loader.loadDirectory(dir);
  await loader.cacheWritten();
  return result;
}

async function packs(cache: AnalysisCache): Promise<string[]> {
  return (await fs.readdir(cache.dir).catch(() => [] as string[])).sort();
}

describe('the on-disk analysis cache (DEFINITIONS_CACHE_DIR)', function () {
  this.timeout(120_000);
  let tmp: { dir: string; remove: () => Promise<void> };
  let defs: string;
  let root: string;
  beforeEach(async () => {
    tmp = await tempDir('analysis-cache-');
    defs = path.join(tmp.dir, 'definitions');
    root = path.join(tmp.dir, 'cache');
  });
  afterEach(() => tmp.remove());

  it('a restart takes every unchanged file from the cache, parsing none, and loads exactly what a load without the cache does', async () => {
    await fs.cp(BUNDLED, defs, { recursive: true });
    const cache = new AnalysisCache(root);
    const plain = await restart(defs, null);
    const first = await restart(defs, cache);
    expect(first.stats).to.include({ analysed: plain.stats.files, cached: 0 });
    expect((await packs(cache)).length).to.equal(new Set(first.snapshot!.apps.keys()).size);

    const again = await restart(defs, cache);
    expect(again.stats).to.include({ files: plain.stats.files, analysed: 0, cached: plain.stats.files });
    expect(plain.ok).to.equal(true);
    expect(seen(again)).to.deep.equal(seen(plain));
    expect(seen(first)).to.deep.equal(seen(plain));
  });

  it('gives every invalid case the same located problems from the cache as without it', async () => {
    const cases = (await fs.readdir(INVALID)).sort();
    expect(cases.length).to.be.greaterThan(40);
    for (const name of cases) {
      const dir = path.join(tmp.dir, name);
      await materialiseCase(path.join(INVALID, name), dir);
      const cache = new AnalysisCache(path.join(tmp.dir, `cache-${name}`));
      const plain = await restart(dir, null);
      await restart(dir, cache);
      const cached = await restart(dir, cache);
      expect(plain.problems.length + plain.warnings.length, name).to.be.greaterThan(0);
      expect(cached.stats.analysed, `${name}: files parsed on the restart`).to.equal(0);
      expect(seen(cached), name).to.deep.equal(seen(plain));
    }
  });

  it('serves what the pack says, without parsing the file: an entry is the analysis', async () => {
    await copyValid(defs);
    const cache = new AnalysisCache(root);
    await restart(defs, cache);
    // The pack rewritten as the engine would write it, with the action's name changed: a load that parsed the file would not see it.
    const file = cache.packPath('acme');
    const bytes = await fs.readFile(file);
    expect(bytes.subarray(0, PACK_MAGIC.length).equals(PACK_MAGIC), 'a JSON pack').to.equal(true);
    const pack = JSON.parse(bytes.subarray(PACK_MAGIC.length + 32).toString('utf8')) as { entries: [string, string, { value: { name: string } }][] };
    pack.entries.find(([name]) => name === ACME_ACTION)![2].value.name = 'Named by the cache';
    const body = Buffer.from(JSON.stringify(pack));
    await fs.writeFile(file, Buffer.concat([PACK_MAGIC, createHash('sha256').update(body).digest(), body]));
    const served = await restart(defs, cache);
    expect(served.snapshot!.apps.get('acme')!.versions.get(1)!.actions.get('list-lists')!.definition.name).to.equal('Named by the cache');
  });

  it('analyses a file again when its content changed, and keeps the new analysis in place of the old', async () => {
    await copyValid(defs);
    const cache = new AnalysisCache(root);
    await restart(defs, cache);
    const file = path.join(defs, ACME_ACTION);
    await fs.writeFile(file, (await fs.readFile(file, 'utf8')).replace('List lists', 'All lists'));
    const edited = await restart(defs, cache);
    expect(edited.stats).to.include({ files: 6, analysed: 1, cached: 5 });
    expect(seen(edited)).to.deep.equal(seen(await restart(defs, null)));
    expect(edited.snapshot!.apps.get('acme')!.versions.get(1)!.actions.get('list-lists')!.definition.name).to.equal('All lists');
    expect((await restart(defs, cache)).stats).to.include({ analysed: 0, cached: 6 });

    // Back to the first content: its entry was replaced, not kept beside it (the pack holds what the folder holds).
    await fs.writeFile(file, (await fs.readFile(file, 'utf8')).replace('All lists', 'List lists'));
    expect((await restart(defs, cache)).stats).to.include({ analysed: 1, cached: 5 });
  });

  it('uses nothing another engine version wrote, even a pack copied into its own folder', async () => {
    await copyValid(defs);
    const older = new AnalysisCache(root, 'a'.repeat(64));
    const newer = new AnalysisCache(root, 'b'.repeat(64));
    await restart(defs, older);
    expect((await restart(defs, newer)).stats).to.include({ analysed: 6, cached: 0 });
    expect(newer.dir).to.not.equal(older.dir);
    expect((await restart(defs, newer)).stats).to.include({ analysed: 0, cached: 6 });

    await fs.copyFile(older.packPath('acme'), newer.packPath('acme'));
    const foreign = await restart(defs, newer);
    expect(foreign.stats).to.include({ analysed: 6, cached: 0 });
    expect(seen(foreign)).to.deep.equal(seen(await restart(defs, null)));
  });

  it("keys the engine's version on its analysis code, schemas, lock file and Node", async () => {
    const code = path.join(tmp.dir, 'code');
    const pkg = path.join(tmp.dir, 'package');
    await fs.cp(path.join(PACKAGE_ROOT, 'engine/core/definitions'), code, { recursive: true });
    await fs.mkdir(pkg);
    await fs.cp(path.join(PACKAGE_ROOT, 'schemas'), path.join(pkg, 'schemas'), { recursive: true });
    await fs.copyFile(path.join(PACKAGE_ROOT, 'package.json'), path.join(pkg, 'package.json'));
    await fs.copyFile(path.join(PACKAGE_ROOT, 'package-lock.json'), path.join(pkg, 'package-lock.json'));
    const key = engineKeyOf(code, pkg);
    expect(key).to.match(/^[0-9a-f]{64}$/);
    // The running engine's own key is this folder's (under tsx, the .ts files this copy was made of).
    expect(engineKey()).to.equal(key);
    expect(engineKeyOf(code, pkg)).to.equal(key);

    const changes: [string, (text: string) => string][] = [
      [path.join(code, 'jsonata-syntax/parser.js'), (text) => `${text}\n// changed\n`],
      [path.join(code, 'parsed-file.ts'), (text) => text.replace('YAML_SYNTAX', 'YAML_SYNTAX ')],
      [path.join(pkg, 'schemas/action.schema.json'), (text) => text.replace('{', '{ ')],
      [path.join(pkg, 'package-lock.json'), (text) => text.replace('"js-yaml"', '"js-yaml" ')],
      [path.join(pkg, 'package.json'), (text) => text.replace(/"version": "[^"]*"/, '"version": "99.0.0"')],
    ];
    for (const [file, change] of changes) {
      const before = await fs.readFile(file, 'utf8');
      await fs.writeFile(file, change(before));
      expect(engineKeyOf(code, pkg), file).to.not.equal(key);
      await fs.writeFile(file, before);
      expect(engineKeyOf(code, pkg), file).to.equal(key);
    }
  });

  it('ignores a torn, corrupt, foreign or unreadable pack: those files are analysed again and the pack written whole', async () => {
    await copyValid(defs);
    const cache = new AnalysisCache(root);
    await restart(defs, cache);
    const pack = cache.packPath('acme');
    const whole = await fs.readFile(pack);
    const plain = seen(await restart(defs, null));
    const damaged: [string, () => Promise<void>][] = [
      ['torn (cut short, as by kill -9 without the rename)', () => fs.writeFile(pack, whole.subarray(0, Math.floor(whole.length / 2)))],
      ['one byte of the body changed', () => fs.writeFile(pack, Buffer.from(whole.map((byte, i) => (i === whole.length - 10 ? byte ^ 0xff : byte))))],
      ['its hash changed', () => fs.writeFile(pack, Buffer.from(whole.map((byte, i) => (i === PACK_MAGIC.length ? byte ^ 0xff : byte))))],
      ['empty', () => fs.writeFile(pack, '')],
      ['not a pack', () => fs.writeFile(pack, 'id: acme\n')],
      ['another layout (its first bytes)', () => fs.writeFile(pack, Buffer.concat([Buffer.from('igw definitions analyses 0\n'), whole.subarray(PACK_MAGIC.length)]))],
      ['a folder in its place', async () => (await fs.rm(pack), await fs.mkdir(pack))],
    ];
    for (const [what, damage] of damaged) {
      await damage();
      const result = await restart(defs, cache);
      expect(result.stats, what).to.include({ analysed: 6, cached: 0 });
      expect(seen(result), what).to.deep.equal(plain);
      if ((await fs.stat(pack)).isDirectory()) {
        await fs.rm(pack, { recursive: true });
        await restart(defs, cache);
      }
      expect((await restart(defs, cache)).stats, `${what}: written whole again`).to.include({ analysed: 0, cached: 6 });
    }

    // A whole, valid pack of another app under this app's name: its entries name other files and another app.
    await fs.cp(path.join(defs, 'acme'), path.join(defs, 'zeta'), { recursive: true });
    for (const file of ['app.yaml']) {
      const at = path.join(defs, 'zeta', file);
      await fs.writeFile(at, (await fs.readFile(at, 'utf8')).replaceAll('acme', 'zeta'));
    }
    const both = await restart(defs, cache);
    expect(both.ok, JSON.stringify(both.problems.slice(0, 3))).to.equal(true);
    await fs.copyFile(cache.packPath('acme'), cache.packPath('zeta'));
    const crossed = await restart(defs, cache);
    expect(crossed.stats).to.include({ analysed: 6, cached: 6 });
    expect(seen(crossed)).to.deep.equal(seen(await restart(defs, null)));
  });

  it('keeps what worker threads analysed (a large first load on 2 threads) as one thread would', async () => {
    const count = await generateTree(defs, 70, 30);
    expect(count).to.be.at.least(PARALLEL_MIN_FILES);
    const threaded = new DefinitionsLoader(undefined, 2, new AnalysisCache(root));
    const first = await threaded.loadDirectory(defs);
    await threaded.cacheWritten();
    expect(first.stats).to.include({ analysed: count, cached: 0 });
    const restarted = await restart(defs, new AnalysisCache(root));
    expect(restarted.stats).to.include({ analysed: 0, cached: count });
    expect(seen(restarted)).to.deep.equal(seen(await restart(defs, null)));
  });

  it('two processes loading and writing at once leave packs a third load uses whole', async () => {
    const count = await generateTree(defs, 40, 12);
    const run = (mode: string) => promisify(execFile)(process.execPath, ['--import', 'tsx', CHILD, mode, defs, root], { cwd: PACKAGE_ROOT });
    const [a, b] = await Promise.all([run('load'), run('load')]);
    for (const { stdout, stderr } of [a, b]) {
      expect(stderr).to.equal('');
      expect(JSON.parse(stdout)).to.deep.include({ ok: true });
    }
    const third = await restart(defs, new AnalysisCache(root));
    expect(third.stats).to.include({ files: count, analysed: 0, cached: count });
    expect(seen(third)).to.deep.equal(seen(await restart(defs, null)));
    expect((await packs(new AnalysisCache(root))).filter((name) => name.endsWith('.tmp'))).to.deep.equal([]);
  });

  it('a writer killed with SIGKILL while writing leaves nothing a load would take wrongly; its temp files are pruned later', async () => {
    const count = await generateTree(defs, 40, 12);
    const cache = new AnalysisCache(root);
    for (let round = 0; round < 3; round++) {
      const child = spawn(process.execPath, ['--import', 'tsx', CHILD, 'write', defs, root], { cwd: PACKAGE_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('writing') && resolve());
        child.once('exit', () => reject(new Error('the writer stopped before writing')));
      });
      await new Promise((resolve) => setTimeout(resolve, 50 + round * 70));
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
      const loaded = await restart(defs, cache);
      expect(loaded.stats.analysed + loaded.stats.cached).to.equal(count);
      expect(seen(loaded)).to.deep.equal(seen(await restart(defs, null)));
    }
    // Any temp file the kills left is removed once old; the packs in use are kept.
    const names = await packs(cache);
    const old = new Date(Date.now() - PRUNE_AFTER_MS - 60_000);
    for (const name of names) await fs.utimes(path.join(cache.dir, name), old, old);
    await cache.prune(Array.from({ length: 40 }, (_, i) => `app-${String(i + 1).padStart(4, '0')}`));
    const left = await packs(cache);
    expect(left.filter((name) => !name.endsWith('.pack'))).to.deep.equal([]);
    expect(left).to.have.length(40);
  });

  it('prunes what no full load used for an hour: packs of apps gone, other engines, temp files; keeps the rest', async () => {
    await copyValid(defs);
    const cache = new AnalysisCache(root);
    await restart(defs, cache);
    const other = path.join(root, 'f'.repeat(32));
    await fs.mkdir(other);
    const stray = {
      goneApp: path.join(cache.dir, packName('gone')),
      recentApp: path.join(cache.dir, packName('recent')),
      temp: `${cache.packPath('acme')}.123.abcdef.tmp`,
      otherEngine: path.join(other, packName('acme')),
      recentOtherEngine: path.join(root, 'e'.repeat(32), packName('acme')),
    };
    await fs.mkdir(path.dirname(stray.recentOtherEngine));
    const old = new Date(Date.now() - PRUNE_AFTER_MS - 60_000);
    for (const file of Object.values(stray)) await fs.writeFile(file, 'x');
    for (const file of [stray.goneApp, stray.temp, stray.otherEngine, cache.packPath('acme')]) await fs.utimes(file, old, old);

    await restart(defs, cache);
    const exists = (file: string) => fs.stat(file).then(() => true, () => false);
    expect(await exists(stray.goneApp)).to.equal(false);
    expect(await exists(stray.temp)).to.equal(false);
    expect(await exists(stray.otherEngine)).to.equal(false);
    expect(await exists(other)).to.equal(false);
    expect(await exists(stray.recentApp)).to.equal(true);
    expect(await exists(stray.recentOtherEngine)).to.equal(true);
    // The pack of an app the load used is kept, and marked used now.
    expect((await fs.stat(cache.packPath('acme'))).mtimeMs).to.be.greaterThan(Date.now() - 60_000);
  });

  it('a hot reload takes a changed file from the cache when another gateway analysed it, and refreshes the cache with what it analysed', async () => {
    await copyValid(defs);
    const logger = createLogger('silent');
    const loaderA = new DefinitionsLoader(undefined, 1, new AnalysisCache(root));
    const loaderB = new DefinitionsLoader(undefined, 1, new AnalysisCache(root));
    const a = new DefinitionsRegistry(defs, logger, loaderA);
    const b = new DefinitionsRegistry(defs, logger, loaderB);
    await a.reload('start');
    await loaderA.cacheWritten();
    expect((await b.reload('start')).stats).to.include({ analysed: 0, cached: 6 });

    const file = path.join(defs, ACME_ACTION);
    await fs.writeFile(file, (await fs.readFile(file, 'utf8')).replace('List lists', 'All lists'));
    // As the watcher reloads: the changed path given.
    const reloadedA = await a.reload('watch', [file]);
    expect(reloadedA.stats).to.include({ incremental: true, read: 1, analysed: 1, cached: 0 });
    await loaderA.cacheWritten();
    const reloadedB = await b.reload('watch', [file]);
    expect(reloadedB.stats).to.include({ incremental: true, read: 1, analysed: 0, cached: 1 });
    expect(b.current().hash).to.equal(a.current().hash);
    expect(seen(reloadedB)).to.deep.equal(seen(await restart(defs, null)));
    // A restart finds the refreshed pack.
    expect((await restart(defs, new AnalysisCache(root))).stats).to.include({ analysed: 0, cached: 6 });
  });

  it('gives back every value a definition can hold exactly as analysed: NaN, infinities, -0, __proto__ keys; and a file of YAML 1.1 dates and binary as its problem', async () => {
    const texts: Record<string, string> = {
      'acme/app.yaml': 'id: acme\nnan: .nan\ninf: .inf\nminusInf: -.inf\nzero: -0\nlist: [-0, .nan, 1]\n__proto__: { polluted: true }\n',
      'beta/app.yaml': '%YAML 1.1\n---\nid: beta\nwhen: 2001-12-14\nbytes: !!binary aGVsbG8=\n',
      'gamma/app.yaml': 'id: gamma\nname: Plain\n',
    };
    const sources = Object.entries(texts).map(([file, text]) => sourceFile(file, text));
    const made = new Map(sources.map((source) => [source.file, { hash: source.hash, summary: summariseFile(source) }]));
    await new AnalysisCache(root).write(
      sources.map((source) => [topName(source.file), [source]]),
      made,
    );
    // A restart: another cache object reading the packs.
    const hits = await new AnalysisCache(root).lookup(sources);
    expect(hits.size).to.equal(3);
    for (const source of sources) expect(hits.get(source), source.file).to.deep.equal(made.get(source.file)!.summary);
    const acme = hits.get(sources[0]!)!.value as Record<string, unknown>;
    expect(Number.isNaN(acme.nan)).to.equal(true);
    expect([acme.inf, acme.minusInf]).to.deep.equal([Infinity, -Infinity]);
    expect(Object.is(acme.zero, -0)).to.equal(true);
    expect(Object.is((acme.list as number[])[0], -0)).to.equal(true);
    expect(Object.hasOwn(acme, '__proto__')).to.equal(true);
    expect(Object.getPrototypeOf(acme)).to.equal(Object.prototype);
    // What JSON cannot give back is kept in v8's format; the rest (nearly every pack) is JSON.
    const magics = await Promise.all(['acme', 'beta', 'gamma'].map(async (top) => (await fs.readFile(new AnalysisCache(root).packPath(top))).subarray(0, PACK_MAGIC_V8.length)));
    expect(magics.map((bytes) => (bytes.equals(PACK_MAGIC_V8) ? 'v8' : bytes.subarray(0, PACK_MAGIC.length).equals(PACK_MAGIC) ? 'json' : '?'))).to.deep.equal(['v8', 'json', 'json']);
    // A date and bytes are no JSON value: the file is refused where it is read (parsed-file.ts), and the cache keeps that.
    const beta = hits.get(sources[1]!)!;
    expect(beta.value).to.equal(null);
    expect(beta.problems.map((p) => `${p.line} ${p.code}`)).to.deep.equal(['4 YAML_SYNTAX']);
  });

  it('a cache that cannot be written is reported and the load goes on without it', async () => {
    await copyValid(defs);
    await fs.writeFile(root, 'a file where the cache folder would be');
    const reported: string[] = [];
    const cache = new AnalysisCache(root, undefined, (error, doing) => reported.push(`${doing}: ${(error as NodeJS.ErrnoException).code}`));
    const loaded = await restart(defs, cache);
    expect(loaded.ok).to.equal(true);
    expect(loaded.stats).to.include({ analysed: 6, cached: 0 });
    expect(reported).to.have.length(1);
    expect(reported[0]).to.match(/^writing .*\.pack: ENOTDIR$/);
  });
});

import fs from 'node:fs/promises';
import path from 'node:path';
import { Writable } from 'node:stream';
import { expect } from 'chai';
import { DefinitionsLoader, type LoadResult } from '../../../engine/core/definitions/loader.ts';
import { MAX_PROBLEMS_PER_FILE } from '../../../engine/core/definitions/problems.ts';
import { DefinitionsRegistry } from '../../../engine/core/definitions/registry.ts';
import { sourceFile, type SourceFile } from '../../../engine/core/definitions/source-files.ts';
import { createLogger } from '../../../engine/platform/log/logger.ts';
import { DEFAULT_MAPPING_LIMITS } from '../../../engine/core/mapping/index.ts';
import { analyseFiles } from '../../../engine/core/definitions/parallel-analysis.ts';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { copyValid, tempDir } from '../../support/definition-fixtures.ts';
import { aliasBomb, deepMapping, hostileAction as action, hundredAliases, manyArguments, unknownKeys } from '../../support/hostile-definitions.ts';

/**
 * Definition files made to break loading (issue 14, item 5): an alias bomb,
 * an ordinary file using one anchor 100 times, 20,000 unknown keys, and a
 * file whose analysis throws. Each is a located problem of its file (or, the
 * ordinary one, accepted), the reload goes on, and the next valid edit is
 * served. Figures are in scripts/attack/definitions.attack.ts.
 */

const BAD = 'acme/versions/1/actions/bad.yaml';
const LIST_LISTS = 'acme/versions/1/actions/list-lists.yaml';

const located = (p: { file: string; line: number; column: number; code: string }) => `${p.file}:${p.line}:${p.column} ${p.code}`;

function capturingLogger() {
  const lines: { level: number; msg: string; reason?: string }[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  return { logger: createLogger('info', stream), lines };
}

describe('hostile definition files', function () {
  this.timeout(60_000);
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  beforeEach(async () => {
    tmp = await tempDir('defs-hostile-');
    await copyValid(tmp.dir);
  });
  afterEach(() => tmp.remove());

  const write = (file: string, text: string) => fs.writeFile(path.join(tmp.dir, file), text);
  const rename = async () => {
    const file = path.join(tmp.dir, LIST_LISTS);
    await fs.writeFile(file, (await fs.readFile(file, 'utf8')).replace('name: List lists', 'name: Renamed'));
  };

  describe('through the registry (hot reload and SIGHUP)', () => {
    /**
     * The registry as the gateway runs it: a good load, then the hostile file,
     * then (the file still there) another file's edit, then the file fixed.
     */
    async function reloadThrough(text: string, changedOnly: boolean) {
      const { logger, lines } = capturingLogger();
      const registry = new DefinitionsRegistry(tmp.dir, logger);
      expect((await registry.reload('start')).ok).to.equal(true);
      const good = registry.current();
      await write(BAD, text);
      const changed = (file: string) => (changedOnly ? [path.join(tmp.dir, file)] : undefined);
      const rejected = await registry.reload('change', changed(BAD));
      const serving = registry.current();
      await rename();
      const stillRejected = await registry.reload('SIGHUP', changed(LIST_LISTS));
      await write(BAD, action('bad'));
      const fixed = await registry.reload('change', changed(BAD));
      return { registry, lines, good, serving, rejected, stillRejected, fixed };
    }

    for (const changedOnly of [false, true]) {
      const how = changedOnly ? 'a watcher reload of the changed file' : 'a full reload (SIGHUP)';
      it(`refuses an alias bomb as a located YAML_ALIAS_LIMIT problem on ${how}, logs it, and serves the next valid edit`, async () => {
        const { registry, lines, good, serving, rejected, stillRejected, fixed } = await reloadThrough(aliasBomb(), changedOnly);
        expect(rejected.problems.map(located)).to.deep.equal([`${BAD}:13:10 YAML_ALIAS_LIMIT`]);
        expect(rejected.problems[0]!.message).to.match(/^aliases expand this file to more than 100000 values/);
        expect(serving).to.equal(good);
        expect(lines.filter((l) => l.msg.startsWith('definitions rejected')).map((l) => l.reason)).to.deep.equal(['change', 'SIGHUP']);
        // The other file's edit is not lost: the load is refused for the bomb alone, and says so.
        expect(stillRejected.problems.map(located)).to.deep.equal([`${BAD}:13:10 YAML_ALIAS_LIMIT`]);
        expect(fixed.ok).to.equal(true);
        expect(registry.status().errors).to.deep.equal([]);
        const version = registry.current().apps.get('acme')!.versions.get(1)!;
        expect(version.actions.get('list-lists')!.name).to.equal('Renamed');
      });
    }

    it('refuses an action of more than 1,000 arguments (every run checks each), located at its arguments, and takes 1,000', async () => {
      const registry = new DefinitionsRegistry(tmp.dir, createLogger('silent'));
      await write(BAD, manyArguments(1_001));
      const refused = await registry.reload('start');
      expect(refused.problems.map(located)).to.deep.equal([`${BAD}:8:3 SCHEMA_INVALID`]);
      expect(refused.problems[0]!.message).to.include('1000');
      await write(BAD, manyArguments(1_000));
      expect((await registry.reload('change')).problems.map(located)).to.deep.equal([]);
    });

    it('accepts an ordinary file that uses one anchor 100 times', async () => {
      const registry = new DefinitionsRegistry(tmp.dir, createLogger('silent'));
      await write(BAD, hundredAliases());
      const result = await registry.reload('start');
      expect(result.problems.map(located)).to.deep.equal([]);
      const bad = registry.current().apps.get('acme')!.versions.get(1)!.actions.get('bad')!;
      expect(bad.arguments.map((a) => a.dataType)).to.deep.equal(Array(101).fill('String'));
    });

    it(`lists at most ${MAX_PROBLEMS_PER_FILE} problems of a file with 20,000 unknown keys, then one PROBLEMS_OMITTED counting the rest`, async () => {
      const { registry, rejected, stillRejected, fixed } = await reloadThrough(unknownKeys(), true);
      const expected = [
        ...Array.from({ length: MAX_PROBLEMS_PER_FILE }, (_, i) => `${BAD}:${8 + i}:1 SCHEMA_UNKNOWN_PROPERTY`),
        `${BAD}:${8 + MAX_PROBLEMS_PER_FILE}:1 PROBLEMS_OMITTED`,
      ];
      expect(rejected.problems.map(located)).to.deep.equal(expected);
      expect(rejected.problems.at(-1)!.message).to.equal(`19950 more problems in this file are not listed; fix the ${MAX_PROBLEMS_PER_FILE} above first`);
      expect(stillRejected.problems.map(located)).to.deep.equal(expected);
      expect(fixed.ok).to.equal(true);
      expect(registry.status().errors).to.deep.equal([]);
    });

    it('makes a file whose analysis throws a located ANALYSIS_FAILED problem of that file, and loads the rest', () => {
      const loader = new DefinitionsLoader();
      // A source whose text cannot be read: an exception from inside the per-file stages.
      const throwing = { file: BAD, hash: 'x'.repeat(64), get text(): string { throw new Error('disk on fire'); } } as SourceFile;
      const valid = [sourceFile('acme/app.yaml', 'id: acme\nslug: acme-crm\nname: Acme CRM\npublished: 1\n')];
      const result: LoadResult = loader.load([...valid, throwing]);
      expect(result.problems.map((p) => `${located(p)} ${p.message}`)).to.include(`${BAD}:1:1 ANALYSIS_FAILED the file could not be analysed: disk on fire (a bug in the gateway; the other files were checked)`);
    });

    it('records a load that throws as a failed attempt with a problem, logs it, and still runs the next reload', async () => {
      const { logger, lines } = capturingLogger();
      const real = new DefinitionsLoader();
      let calls = 0;
      const loader = {
        loadDirectory: async (dir: string, changed?: readonly string[]) => {
          if (++calls === 2) throw new Error('the loader broke');
          return real.loadDirectory(dir, changed);
        },
      };
      const registry = new DefinitionsRegistry(tmp.dir, logger, loader);
      expect((await registry.reload('start')).ok).to.equal(true);
      const broken = await registry.reload('SIGHUP');
      expect(broken.ok).to.equal(false);
      expect(broken.problems.map((p) => `${located(p)} ${p.message}`)).to.deep.equal(['.:1:1 ANALYSIS_FAILED the definitions could not be loaded: the loader broke (a bug in the gateway)']);
      expect(registry.status().lastAttempt).to.include({ reason: 'SIGHUP', ok: false });
      expect(lines.some((l) => l.level === 50 && l.reason === 'SIGHUP' && l.msg.startsWith('definitions could not be loaded'))).to.equal(true);
      await rename();
      expect((await registry.reload('change')).ok).to.equal(true);
    });
  });

  describe('off the request path', () => {
    it('lets the event loop turn while it analyses many small files on this thread', async () => {
      const files = Array.from({ length: 3_000 }, (_, i) => sourceFile(`acme/versions/1/actions/a${i}.yaml`, action(`a${i}`, `description: file ${i}\n`)));
      let turns = 0;
      let analysing = true;
      const tick = () => {
        if (!analysing) return;
        turns++;
        setImmediate(tick);
      };
      setImmediate(tick);
      const { analyses } = await analyseFiles(files, DEFAULT_MAPPING_LIMITS, 0);
      analysing = false;
      expect(analyses).to.have.length(3_000);
      // All at once (the old way) is no turn at all; a few milliseconds at a time is at least one. (Not more: how
      // many depends on the machine's speed and load, and one CI run on a loaded machine saw exactly one.)
      expect(turns).to.be.greaterThan(0);
    });

    for (const changedOnly of [false, true]) {
      it(`analyses a file of 20,000 keys on a worker thread: this thread idles through most of ${changedOnly ? 'a watcher reload' : 'a full reload'}`, async () => {
        const loader = new DefinitionsLoader(DEFAULT_MAPPING_LIMITS, 1);
        expect((await loader.loadDirectory(tmp.dir)).ok).to.equal(true);
        await write(BAD, unknownKeys());
        const before = performance.eventLoopUtilization();
        const result = await loader.loadDirectory(tmp.dir, changedOnly ? [path.join(tmp.dir, BAD)] : undefined);
        // The share of the reload this thread was busy: all of it when it parses the file itself.
        const busy = performance.eventLoopUtilization(before).utilization;
        expect(result.problems.map(located)[0]).to.equal(`${BAD}:8:1 SCHEMA_UNKNOWN_PROPERTY`);
        expect(result.problems).to.have.length(MAX_PROBLEMS_PER_FILE + 1);
        expect(busy).to.be.lessThan(0.5);
      });
    }
  });

  describe('in the running gateway', () => {
    let gw: TestGateway | undefined;
    afterEach(async () => {
      await gw?.stop();
      gw = undefined;
    });

    /** Polls the status route until `holds` (a reload takes milliseconds; the bound is for a busy machine). */
    async function statusWhen(holds: (data: any) => boolean): Promise<any> {
      const deadline = Date.now() + 20_000;
      for (;;) {
        const answer = await call(gw!, 'GET', '/v2/definitions/status');
        if (holds(answer.body.data)) return answer.body.data;
        if (Date.now() > deadline) throw new Error(`status never held; last: ${JSON.stringify(answer.body).slice(0, 500)}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }

    for (const [name, text, expected] of [
      ['an alias bomb', aliasBomb(), `${BAD}:13:10 YAML_ALIAS_LIMIT`],
      ['20,000 unknown keys', unknownKeys(), `${BAD}:8:1 SCHEMA_UNKNOWN_PROPERTY`],
      ['a mapping nested 2,000 levels deep in a 40 KB file (analysed on a worker)', deepMapping(), `${BAD}:9:${4 + 4 * 99} YAML_TOO_DEEP`],
    ] as const) {
      it(`starts not ready with ${name} present, the located problem on the status route, and is ready once the file is fixed`, async () => {
        await write(BAD, text);
        gw = await startTestGateway({ DEFINITIONS_DIR: tmp.dir });
        const ready = await call(gw, 'GET', '/ready', { auth: null });
        expect(ready.status).to.equal(503);
        expect(ready.body.error.code).to.equal('NOT_READY');
        const status = await call(gw, 'GET', '/v2/definitions/status');
        expect(status.body.data.errors.map(located)[0]).to.equal(expected);
        expect(status.body.data.errors.length).to.be.at.most(MAX_PROBLEMS_PER_FILE + 1);
        await write(BAD, action('bad'));
        await statusWhen((data) => data.hash !== null && data.errors.length === 0);
        expect((await call(gw, 'GET', '/ready', { auth: null })).status).to.equal(200);
      });

      it(`shows ${name} written while it runs on the status route, keeps serving, and takes the next valid edit`, async () => {
        gw = await startTestGateway({ DEFINITIONS_DIR: tmp.dir });
        const before = await statusWhen((data) => data.hash !== null);
        await write(BAD, text);
        const rejected = await statusWhen((data) => data.errors.length > 0);
        expect(rejected.errors.map(located)[0]).to.equal(expected);
        expect(rejected.errors.length).to.be.at.most(MAX_PROBLEMS_PER_FILE + 1);
        expect(rejected.hash).to.equal(before.hash);
        expect((await call(gw, 'GET', '/ready', { auth: null })).status).to.equal(200);
        await write(BAD, action('bad'));
        await rename();
        // The two writes may be read by two reloads: wait for the second.
        await statusWhen((data) => data.errors.length === 0 && data.hash !== before.hash);
        const deadline = Date.now() + 20_000;
        let name = '';
        while (name !== 'Renamed' && Date.now() < deadline) {
          name = (await call(gw, 'GET', '/v2/universal/apps/acme-crm/actions/list-lists')).body.data[0].name;
          if (name !== 'Renamed') await new Promise((resolve) => setTimeout(resolve, 50));
        }
        expect(name).to.equal('Renamed');
      });
    }

    it('bounds the status answer: at most STATUS_MAX_PROBLEMS problems, with the total count', async () => {
      // 30 files of 20 unknown keys each: 600 problems in all.
      for (let i = 0; i < 30; i++) await write(`acme/versions/1/actions/bad-${String(i).padStart(2, '0')}.yaml`, unknownKeys(20).replace(/bad/g, `bad-${String(i).padStart(2, '0')}`));
      gw = await startTestGateway({ DEFINITIONS_DIR: tmp.dir });
      const status = await call(gw, 'GET', '/v2/definitions/status');
      expect(status.body.data.errorCount).to.equal(600);
      expect(status.body.data.errors).to.have.length(200);
    });
  });
});

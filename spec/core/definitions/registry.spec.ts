import fs from 'node:fs/promises';
import path from 'node:path';
import { Writable } from 'node:stream';
import { expect } from 'chai';
import { GatewayError } from '../../../engine/platform/errors/index.ts';
import { DefinitionsLoader } from '../../../engine/core/definitions/loader.ts';
import { DefinitionsRegistry } from '../../../engine/core/definitions/registry.ts';
import { createLogger } from '../../../engine/platform/log/logger.ts';
import { copyValid, tempDir } from '../../support/definition-fixtures.ts';

function capturingLogger() {
  const lines: { msg: string; reason?: string }[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  return { logger: createLogger('info', stream), lines };
}

describe('the definitions registry', () => {
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  beforeEach(async () => {
    tmp = await tempDir('defs-registry-');
    await copyValid(tmp.dir);
  });
  afterEach(() => tmp.remove());

  it('answers NOT_READY (503) and fails its readiness check until a load succeeds', async () => {
    const registry = new DefinitionsRegistry(tmp.dir, createLogger('silent'));
    const error = (() => {
      try {
        registry.current();
      } catch (e) {
        return e as GatewayError;
      }
      return null;
    })();
    expect([error?.code, error?.status]).to.deep.equal(['NOT_READY', 503]);
    expect(await registry.readinessCheck().check()).to.equal('the first load has not finished');
    await registry.reload('test');
    expect(await registry.readinessCheck().check()).to.equal(null);
  });

  it('logs a rejected change with every problem located, and keeps the last good snapshot', async () => {
    const { logger, lines } = capturingLogger();
    const registry = new DefinitionsRegistry(tmp.dir, logger);
    await registry.reload('start');
    const good = registry.current();
    const file = path.join(tmp.dir, 'acme/versions/1/actions/list-lists.yaml');
    await fs.writeFile(file, (await fs.readFile(file, 'utf8')).replace('method: GET', 'method: FETCH'));

    const result = await registry.reload('SIGHUP');
    expect(result.ok).to.equal(false);
    expect(registry.current()).to.equal(good);
    const rejected = lines.find((l) => l.msg.startsWith('definitions rejected'))!;
    expect(rejected.reason).to.equal('SIGHUP');
    expect(rejected.msg).to.equal(
      `definitions rejected (keeping snapshot ${good.hash.slice(0, 12)}):\n` +
        `${tmp.dir}/acme/versions/1/actions/list-lists.yaml:5:9 SCHEMA_ENUM method must be one of GET, POST, PUT, PATCH, DELETE (got "FETCH")`,
    );
  });

  it('never runs two loads at once: asks while one runs join a single queued load', async () => {
    const { logger, lines } = capturingLogger();
    const real = new DefinitionsLoader();
    let running = 0;
    let mostAtOnce = 0;
    const gates: (() => void)[] = [];
    // A loader that waits for the test to let each load finish, so "while one runs" is certain.
    const loader = {
      loadDirectory: async (dir: string) => {
        mostAtOnce = Math.max(mostAtOnce, ++running);
        await new Promise<void>((resolve) => gates.push(resolve));
        running--;
        return real.loadDirectory(dir);
      },
    };
    const registry = new DefinitionsRegistry(tmp.dir, logger, loader);
    const first = registry.reload('a');
    while (gates.length === 0) await new Promise((resolve) => setImmediate(resolve));
    const second = registry.reload('b');
    const third = registry.reload('c');
    expect(third).to.equal(second);
    expect(second).to.not.equal(first);
    gates.shift()!();
    await first;
    while (gates.length === 0) await new Promise((resolve) => setImmediate(resolve));
    gates.shift()!();
    await second;
    expect(mostAtOnce).to.equal(1);
    expect(lines.filter((l) => l.msg === 'definitions loaded').map((l) => l.reason)).to.deep.equal(['a', 'b']);
  });
});

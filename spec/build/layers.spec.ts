import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { ROOT } from '../helpers/process.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const run = promisify(execFile);
const CRUISE = path.join(ROOT, 'node_modules/.bin/depcruise');

/** `npm run check:layers`'s command on a tree; its exit code and what it printed. */
async function checkLayers(tree: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(CRUISE, ['engine', '--config', path.join(ROOT, '.dependency-cruiser.cjs'), '--output-type', 'err'], { cwd: tree });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: failed.stdout + failed.stderr };
  }
}

/**
 * The layers of engine/ (docs/architecture.md): the rule file holds on the
 * tree, and each kind of break is refused naming the file, the import and
 * the rule, so a newcomer is told where a piece may not go.
 */
describe('the layers of engine/ (npm run check:layers)', function () {
  this.timeout(60_000);

  it('holds on this tree', async () => {
    const { code, output } = await checkLayers(ROOT);
    expect(output).to.match(/no dependency violations found/);
    expect(code).to.equal(0);
  });

  it('refuses an upward import, an import between surfaces, Koa outside http/ and an import circle, naming each', async () => {
    const tmp = await tempDir();
    try {
      await fs.cp(path.join(ROOT, 'engine'), path.join(tmp.dir, 'engine'), { recursive: true });
      await fs.symlink(path.join(ROOT, 'node_modules'), path.join(tmp.dir, 'node_modules'));
      const add = (file: string, text: string) => fs.appendFile(path.join(tmp.dir, 'engine', file), `\n${text}\n`);
      await add('platform/ids.ts', "export { runAction } from '../core/run/run-action.ts';");
      await add('tenancy/companies/companies.ts', "export type { Services } from '../../http/services.ts';");
      await add('admin/key-agreement.ts', "export { createApp } from '../http/server/app.ts';");
      await add('core/plan/index.ts', "export type { Context } from 'koa';");
      await fs.writeFile(path.join(tmp.dir, 'engine/core/run/loop-a.ts'), "import { b } from './loop-b.ts';\nexport const a = () => b;\n");
      await fs.writeFile(path.join(tmp.dir, 'engine/core/run/loop-b.ts'), "import { a } from './loop-a.ts';\nexport const b = () => a;\n");

      const { code, output } = await checkLayers(tmp.dir);
      expect(code).to.not.equal(0);
      expect(output).to.include('platform-imports-upward: engine/platform/ids.ts → engine/core/run/run-action.ts');
      expect(output).to.include('tenancy-imports-upward: engine/tenancy/companies/companies.ts → engine/http/services.ts');
      expect(output).to.include('surface-imports-another-surface: engine/admin/key-agreement.ts → engine/http/server/app.ts');
      expect(output).to.match(/koa-outside-http: engine\/core\/plan\/index\.ts → \S*node_modules\/(@types\/)?koa\//);
      expect(output).to.match(/no-circular: engine\/core\/run\/loop-[ab]\.ts → \n\s+engine\/core\/run\/loop-[ab]\.ts/);
    } finally {
      await tmp.cleanup();
    }
  });
});

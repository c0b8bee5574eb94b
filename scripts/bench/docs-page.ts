/**
 * `npm run bench:docs`: what the /docs pages cost. The install: swagger-ui-dist (a dependency: what every
 * install carries) and puppeteer-core with the packages only it brings (a devDependency: tests only). The
 * wire: the bytes one page load transfers, plain and gzipped. The time: headless Chromium opening /docs until
 * the first operation is visible, cold (a new browser context: empty cache) and warm (a reload: 304s).
 * Reports figures; never fails on speed. Needs Chromium for the time (CHROMIUM_PATH or /usr/bin/chromium).
 *
 *   npm run bench:docs                  # 5 rounds
 *   npm run bench:docs -- --rounds=10
 */
import { accessSync, constants, readdirSync, readFileSync, statSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { commandLine, isEntry } from '../../engine/platform/cli/command-line.ts';
import { loadConfig } from '../../engine/config/config.ts';
import { startGateway } from '../../engine/gateway.ts';
import { createLogger } from '../../engine/platform/log/logger.ts';
import { PACKAGE_ROOT } from '../../engine/platform/package-root.ts';
import { ViewerAssets } from '../../engine/http/pages/api-docs/viewer-assets.ts';
import { median, round, table } from './stats.ts';

export const cli = {
  command: 'npm run bench:docs --',
  summary:
    'Measures what the /docs pages cost: the install size of the viewer (swagger-ui-dist) and of the browser driver (puppeteer-core, tests only), the bytes a page load transfers, and the time headless Chromium takes to show the first operation, cold and warm. Reports figures; never fails on speed.',
  options: {
    rounds: { type: 'string' as const, value: '<n>', description: 'page loads measured, each cold and warm (default 5)' },
  },
  examples: ['npm run bench:docs', 'npm run bench:docs -- --rounds=10'],
};

/** Bytes of the files under `dir` (what `du --apparent-size` counts). */
function treeBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) total += treeBytes(full);
    else if (entry.isFile()) total += statSync(full).size;
  }
  return total;
}

/** A package and every package it pulls in that only dev dependencies need (package-lock's `dev: true`). */
function devOnlyClosure(root: string): string[] {
  const lock = JSON.parse(readFileSync(path.join(PACKAGE_ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dependencies?: Record<string, string>; dev?: boolean }> };
  const seen = new Set<string>();
  const visit = (location: string) => {
    if (seen.has(location) || !lock.packages[location]?.dev) return;
    seen.add(location);
    for (const name of Object.keys(lock.packages[location]!.dependencies ?? {})) {
      // Node's resolution: nested first, then upwards to the top-level node_modules.
      for (let base = location; ; base = base.slice(0, Math.max(0, base.lastIndexOf('/node_modules/')))) {
        const candidate = `${base}/node_modules/${name}`;
        if (lock.packages[candidate]) {
          visit(candidate);
          break;
        }
        if (!base.includes('/node_modules/')) {
          if (lock.packages[`node_modules/${name}`]) visit(`node_modules/${name}`);
          break;
        }
      }
    }
  };
  visit(`node_modules/${root}`);
  return [...seen];
}

const mb = (bytes: number) => `${round(bytes / 1024 / 1024, 1)} MB`;
const kb = (bytes: number) => `${round(bytes / 1024, 0)} KB`;

function chromium(): string | null {
  const chosen = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
  try {
    accessSync(chosen, constants.X_OK);
    return chosen;
  } catch {
    return null;
  }
}

async function main(rounds: number): Promise<void> {
  const viewer = ['swagger-ui-dist', '@scarf/scarf'].map((name) => treeBytes(path.join(PACKAGE_ROOT, 'node_modules', name)));
  const driver = devOnlyClosure('puppeteer-core');
  const driverBytes = driver.reduce((sum, location) => sum + treeBytes(path.join(PACKAGE_ROOT, location)), 0);
  const assets = new ViewerAssets();
  const served = ['swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js', 'swagger-ui.css', 'index.css', 'favicon-32x32.png'].map((name) => assets.get(name)!);
  const plain = served.reduce((sum, a) => sum + a.body.length, 0);
  const gzipped = served.reduce((sum, a) => sum + (a.gzipped ?? a.body).length, 0);
  process.stdout.write(`install\n${table(['package', 'on disk', 'installed by'], [
    ['swagger-ui-dist 5 (+ @scarf/scarf, its dependency)', mb(viewer[0]! + viewer[1]!), 'npm ci (a dependency)'],
    [`puppeteer-core and the ${driver.length - 1} packages only it needs`, mb(driverBytes), 'npm ci (a devDependency; npm ci --omit=dev leaves it out)'],
  ])}\n\none page load transfers (the viewer's files; the page, its settings and the OpenAPI document are extra)\n${table(['files', 'plain', 'gzipped (sent when accepted)'], [[served.length, kb(plain), kb(gzipped)]])}\n\n`);

  const executablePath = chromium();
  if (!executablePath) {
    process.stdout.write('page load: not measured, no chromium (install: apt-get install chromium, or set CHROMIUM_PATH)\n');
    return;
  }
  const { default: puppeteer } = await import('puppeteer-core');
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'igw-bench-docs-'));
  const gateway = await startGateway(loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, BOOTSTRAP_API_KEY: 'bench-docs-key-0123456789abcdef', LOG_LEVEL: 'silent' }), createLogger('silent'));
  const browser = await puppeteer.launch({ executablePath, headless: true, args: [...(process.getuid?.() === 0 ? ['--no-sandbox'] : []), '--disable-dev-shm-usage'] });
  const cold: number[] = [];
  const warm: number[] = [];
  try {
    for (let i = 0; i < rounds; i += 1) {
      const context = await browser.createBrowserContext();
      const page = await context.newPage();
      await page.setViewport({ width: 1280, height: 900 });
      const shown = async (load: () => Promise<unknown>) => {
        const started = performance.now();
        await load();
        await page.waitForSelector('.opblock-summary-description', { visible: true, timeout: 60_000 });
        return performance.now() - started;
      };
      cold.push(await shown(() => page.goto(`http://127.0.0.1:${gateway.port}/docs`)));
      warm.push(await shown(() => page.reload()));
      await context.close();
    }
  } finally {
    await browser.close();
    await gateway.stop();
    await fs.rm(dataDir, { recursive: true, force: true });
  }
  const row = (name: string, values: number[]) => [name, Math.round(median(values)), Math.round(Math.min(...values)), Math.round(Math.max(...values))];
  process.stdout.write(`page load to the first operation shown (ms, ${rounds} rounds, headless Chromium at ${executablePath}, ${os.cpus().length} CPUs, load average ${os.loadavg()[0]!.toFixed(1)})\n${table(['', 'median', 'min', 'max'], [row('cold (empty cache)', cold), row('warm (reload, 304s)', warm)])}\n`);
}

if (isEntry(import.meta.url)) {
  const parsed = commandLine(cli);
  if (parsed) {
    const rounds = Number(parsed.values.rounds ?? '5');
    if (!Number.isInteger(rounds) || rounds < 1) {
      process.stderr.write(`--rounds must be a whole number of 1 or more (got "${parsed.values.rounds}")\n`);
      process.exitCode = 2;
    } else await main(rounds);
  }
}

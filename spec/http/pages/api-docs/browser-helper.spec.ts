import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'puppeteer-core';
import { chromiumPath, horizontalOverflow, launchBrowserOrSkip, PHONE, SKIP_MESSAGE, watchedPage } from '../../../helpers/browser.ts';
import { tempDir } from '../../../helpers/temp-dir.ts';
import { ROOT } from '../../../helpers/process.ts';

describe('the browser specs\' Chromium (spec/helpers/browser.ts)', function () {
  this.timeout(60_000);

  it('takes CHROMIUM_PATH when set, and refuses one that is not an executable (a mistake, not a skip)', () => {
    expect(chromiumPath({ CHROMIUM_PATH: process.execPath }, '/nonexistent')).to.equal(process.execPath);
    expect(() => chromiumPath({ CHROMIUM_PATH: '/nonexistent/chromium' })).to.throw('CHROMIUM_PATH=/nonexistent/chromium is not an executable file');
  });

  it('finds none when nothing is installed', () => {
    expect(chromiumPath({}, '/nonexistent/chromium')).to.equal(null);
  });

  it('without a browser, says SKIPPED with the install command and reports the tests pending, never passing', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const spec = path.join(dir, 'no-browser.spec.ts');
      writeFileSync(spec, `
import { launchBrowserOrSkip } from ${JSON.stringify(path.join(ROOT, 'spec/helpers/browser.ts'))};
describe('a browser suite', function () {
  before(async function () { await launchBrowserOrSkip(this, null); });
  it('would need a browser', () => { throw new Error('ran without a browser'); });
});
`);
      const run = spawnSync(path.join(ROOT, 'node_modules/.bin/mocha'), ['--no-config', '--node-option', 'import=tsx', spec], { cwd: ROOT, encoding: 'utf8' });
      expect(run.status, run.stdout + run.stderr).to.equal(0);
      expect(run.stderr).to.include(`${SKIP_MESSAGE}: a browser suite`);
      expect(run.stdout).to.include('0 passing').and.include('1 pending');
    } finally {
      await cleanup();
    }
  });

  describe('what a watched page catches (so the /docs specs can fail)', function () {
    let browser: Browser;
    let server: http.Server;
    let origin: string;
    before(async function () {
      browser = await launchBrowserOrSkip(this);
      // A page that errs in every way the /docs specs look for.
      server = http.createServer((_request, response) => {
        response.setHeader('content-type', 'text/html; charset=utf-8');
        response.end('<!doctype html><meta name="viewport" content="width=device-width"><body><div style="width:900px">wide</div><img src="http://203.0.113.9/pixel.png"><script>console.error("broken"); throw new Error("uncaught");</script>');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    after(async () => {
      await browser?.close();
      server?.close();
    });

    it('lists console errors, uncaught exceptions, requests to another origin (aborted) and sideways overflow at phone width', async () => {
      const watched = await watchedPage(browser, origin, PHONE);
      await watched.page.goto(`${origin}/`, { waitUntil: 'load' });
      expect(watched.consoleErrors.join('\n')).to.include('broken');
      expect(watched.pageErrors.join('\n')).to.include('uncaught');
      expect(watched.foreignRequests).to.deep.equal(['http://203.0.113.9/pixel.png']);
      const { overflow, widest } = await horizontalOverflow(watched.page);
      expect(overflow).to.be.greaterThan(400);
      expect(widest).to.include('div');
      await watched.page.close();
    });
  });
});

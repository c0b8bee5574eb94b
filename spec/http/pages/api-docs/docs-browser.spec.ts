import { expect } from 'chai';
import net from 'node:net';
import type { Browser } from 'puppeteer-core';
import { startTestGateway, type TestGateway } from '../../../helpers/gateway.ts';
import { DESKTOP, horizontalOverflow, launchBrowserOrSkip, PHONE, screenshot, watchedPage } from '../../../helpers/browser.ts';

/** An operation of each document, as the viewer lists it (summary under its path). */
const DOCUMENTS = [
  { name: 'v1', title: 'Integration gateway v1', operation: { path: '/v1/users', summary: 'List users' } },
  { name: 'v2', title: 'Integration gateway v2', operation: { path: '/v2/connections', summary: 'Create a connection' } },
];

describe('/docs in a real browser (headless Chromium)', function () {
  // A cold Chromium parsing Swagger UI's 1.5 MB bundle takes seconds on a loaded 2-CPU machine.
  this.timeout(90_000);
  let gw: TestGateway;
  let browser: Browser;
  before(async function () {
    browser = await launchBrowserOrSkip(this);
    gw = await startTestGateway();
  });
  after(async () => {
    await browser?.close();
    await gw?.stop();
  });

  for (const viewport of [DESKTOP, PHONE]) {
    for (const doc of DOCUMENTS) {
      it(`renders the ${doc.name} document at ${viewport.width} px: its operations visible, no console error, nothing from another origin, no horizontal scrolling`, async () => {
        const watched = await watchedPage(browser, gw.url, viewport);
        const { page } = watched;
        try {
          await page.goto(`${gw.url}/docs?urls.primaryName=${doc.name}`, { waitUntil: 'load' });
          const title = await page.waitForSelector('.information-container h1.title', { visible: true });
          expect(await title!.evaluate((e) => e.textContent)).to.include(doc.title);
          const summary = await page.waitForSelector(`xpath///*[contains(@class,"opblock-summary-description") and normalize-space(.)="${doc.operation.summary}"]`, { visible: true });
          const block = await summary!.evaluate((e) => e.closest('.opblock')!.querySelector('.opblock-summary-path')!.textContent!.replace(/\u200b/g, ''));
          expect(block).to.equal(doc.operation.path);
          // The switcher shows the document picked, and offers the other.
          const options = await page.$$eval('.topbar select option', (os) => os.map((o) => ({ name: o.textContent, selected: (o as unknown as { selected: boolean }).selected })));
          expect(options).to.deep.equal(DOCUMENTS.map((d) => ({ name: d.name, selected: d.name === doc.name })));
          await screenshot(page, `docs-${doc.name}-${viewport.width}`);
          expect(watched.pageErrors, 'uncaught exceptions').to.deep.equal([]);
          expect(watched.consoleErrors, 'console errors (a CSP refusal is one)').to.deep.equal([]);
          expect(watched.foreignRequests, 'requests to another origin').to.deep.equal([]);
          expect(watched.requests).to.include(`${gw.url}/docs/assets/swagger-ui-bundle.js`).and.include(`${gw.url}${DOCUMENTS.find((d) => d.name === doc.name)!.operation.path.slice(0, 3)}/openapi.json`);
          const { overflow, widest } = await horizontalOverflow(page);
          expect(overflow, `the page scrolls sideways; widest: ${widest}`).to.equal(0);
        } finally {
          await page.close();
        }
      });
    }
  }

  it('switches documents from the top bar, and opens an operation at phone width without overflowing', async () => {
    const watched = await watchedPage(browser, gw.url, PHONE);
    const { page } = watched;
    try {
      await page.goto(`${gw.url}/docs`, { waitUntil: 'load' });
      await page.waitForSelector('xpath///h1[contains(., "Integration gateway v1")]', { visible: true });
      await page.select('.topbar select', '/v2/openapi.json');
      await page.waitForSelector('xpath///h1[contains(., "Integration gateway v2")]', { visible: true });
      expect(new URL(page.url()).searchParams.get('urls.primaryName')).to.equal('v2');
      const summary = await page.waitForSelector('xpath///*[contains(@class,"opblock-summary-description") and normalize-space(.)="Create a connection"]', { visible: true });
      await summary!.click();
      await page.waitForSelector('.opblock.is-open .opblock-body', { visible: true });
      await screenshot(page, 'docs-v2-operation-open-375');
      const { overflow, widest } = await horizontalOverflow(page);
      expect(overflow, `the page scrolls sideways; widest: ${widest}`).to.equal(0);
      expect(watched.consoleErrors).to.deep.equal([]);
      expect(watched.pageErrors).to.deep.equal([]);
      expect(watched.foreignRequests).to.deep.equal([]);
    } finally {
      await page.close();
    }
  });

  it('keeps the API key when the reader switches between the v1 and v2 documents, and a "Try it out" on the other document sends it', async () => {
    // Try it out sends to the document's server: a gateway whose PUBLIC_BASE_URL is the page's own origin.
    const port = await freePort();
    const own = await startTestGateway({ PORT: String(port), PUBLIC_BASE_URL: `http://127.0.0.1:${port}` });
    const watched = await watchedPage(browser, own.url, DESKTOP);
    const { page } = watched;
    try {
      await page.goto(`${own.url}/docs?urls.primaryName=v1`, { waitUntil: 'load' });
      await page.waitForSelector('xpath///h1[contains(., "Integration gateway v1")]', { visible: true });
      await (await page.waitForSelector('.auth-wrapper .btn.authorize', { visible: true }))!.click();
      const input = await page.waitForSelector('.modal-ux input[type=text], .modal-ux input[type=password]', { visible: true });
      await input!.type(own.apiKey);
      await (await page.waitForSelector('xpath///div[contains(@class,"modal-ux")]//button[normalize-space(.)="Authorize"]', { visible: true }))!.click();
      await (await page.waitForSelector('.modal-ux .btn-done', { visible: true }))!.click();
      await page.waitForSelector('.auth-wrapper .btn.authorize.locked', { visible: true });

      await page.select('.topbar select', '/v2/openapi.json');
      await page.waitForSelector('xpath///h1[contains(., "Integration gateway v2")]', { visible: true });
      await page.waitForSelector('.auth-wrapper .btn.authorize.locked', { visible: true, timeout: 10_000 });
      // The key really goes out: "Try it out" on a v2 list, executed as the reader would.
      const summary = await page.waitForSelector('xpath///*[contains(@class,"opblock-summary-description") and normalize-space(.)="List end users"]', { visible: true });
      await summary!.click();
      const block = await summary!.evaluateHandle((e) => e.closest('.opblock'));
      await (await block.asElement()!.waitForSelector('.try-out__btn', { visible: true }))!.click();
      // Executed as shown (Swagger UI shows the examples; spec/http/openapi/list-parameters.spec.ts sends each one).
      const answered = page.waitForResponse((r) => new URL(r.url()).pathname === '/v2/end-users');
      await (await block.asElement()!.waitForSelector('.execute', { visible: true }))!.click();
      const response = await answered;
      expect(response.request().headers().authorization).to.equal(`Bearer ${own.apiKey}`);
      expect(response.status()).to.equal(200);
      await page.waitForSelector('xpath///div[contains(@class,"opblock") and contains(@class,"is-open")]//*[contains(@class,"response-col_status") and normalize-space(.)="200"]', { visible: true });
      expect(watched.consoleErrors).to.deep.equal([]);
      expect(watched.pageErrors).to.deep.equal([]);
    } finally {
      await page.close();
      await own.stop();
    }
  });

  it("labels the servers dropdown (an accessible name, as the document switcher has)", async () => {
    const watched = await watchedPage(browser, gw.url, DESKTOP);
    const { page } = watched;
    try {
      for (const doc of DOCUMENTS) {
        await page.goto(`${gw.url}/docs?urls.primaryName=${doc.name}`, { waitUntil: 'load' });
        await page.waitForSelector(`xpath///h1[contains(., "${doc.title}")]`, { visible: true });
        const servers = await page.waitForSelector('select#servers', { visible: true });
        const node = await page.accessibility.snapshot({ root: servers!, interestingOnly: false });
        expect(node?.name, `${doc.name}: the servers select's accessible name`).to.equal('Server');
      }
      expect(watched.consoleErrors).to.deep.equal([]);
    } finally {
      await page.close();
    }
  });
});

/** A port nothing listens on now (the system picks it), for a gateway whose PUBLIC_BASE_URL must name its port before it starts. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

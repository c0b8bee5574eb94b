import { expect } from 'chai';
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
});

import path from 'node:path';
import { expect } from 'chai';
import { formatFolder } from '../../../engine/authoring/format-folder.ts';
import { runImport } from '../../../engine/authoring/import/run-import.ts';
import { runDefinitionTests } from '../../../engine/authoring/definition-tests.ts';
import { loadDefinitions } from '../../../engine/core/definitions/loader.ts';
import { tempDir } from '../../support/definition-fixtures.ts';
import { ROOT } from '../run-script.ts';

const FIXTURES = path.join(ROOT, 'spec/fixtures/openapi-import');

/**
 * Real descriptions of several shapes (spec/fixtures/openapi-import/, each
 * with its source and licence): every one imports, the folder loads with no
 * problem, is in canonical form, and every offline case it was given passes.
 * The counts pin what each imports and skips: a change to them is a change
 * of what the importer does, to be looked at.
 */
const DESCRIPTIONS = [
  // OpenAPI 3.0 from 2,900 files (bundled), 659 operations: Bearer, JSON bodies, page/per_page and links.pages.next.
  { file: 'digitalocean/digitalocean.json', slug: 'digitalocean-imported', format: 'OpenAPI 3.0', actions: 624, skipped: 35, cases: 1333 },
  // Swagger 2.0 (converted): OAuth 2.0, form bodies, ok: false failures in a 200, response_metadata.next_cursor.
  { file: 'slack/slack-web-api.json', slug: 'slack-imported', format: 'Swagger 2.0', actions: 174, skipped: 0, cases: 356 },
  // OpenAPI 3.0: HTTP Basic, form bodies, a path prefix from the operations' servers, next_page_uri.
  { file: 'twilio/twilio-api-v2010.json', slug: 'twilio-imported', format: 'OpenAPI 3.0', actions: 197, skipped: 0, cases: 259 },
  // OpenAPI 3.1: an API key header, OAuth 2.0 code and client credentials, type arrays, oneOf, arrays as bodies.
  { file: 'discord/discord-v10.json', slug: 'discord-imported', format: 'OpenAPI 3.1', actions: 233, skipped: 9, cases: 241 },
  // OpenAPI 3.0 in YAML: bodies wrapped in data, a personal access token and OAuth 2.0, next_page.offset.
  { file: 'asana/asana.yaml', slug: 'asana-imported', format: 'OpenAPI 3.0', actions: 246, skipped: 1, cases: 554 },
];

describe('npm run import of real descriptions', function () {
  this.timeout(900_000);

  for (const d of DESCRIPTIONS) {
    it(`${d.file}: ${d.actions} actions with ${d.cases} offline cases, ${d.skipped} skipped; the folder loads, is canonical and every case passes`, async () => {
      const tmp = await tempDir('import-real-');
      try {
        const dir = path.join(tmp.dir, 'definitions');
        const outcome = await runImport(path.join(FIXTURES, d.file), { dir, slug: d.slug, cwd: tmp.dir });
        expect(outcome.stderr).to.equal('');
        expect(outcome.exitCode).to.equal(0);
        expect(outcome.stdout).to.contain(`(${d.format}, `);
        expect(outcome.stdout).to.contain(`  ${d.actions} actions with ${d.cases} offline cases`);
        expect(outcome.stdout).to.contain(`  ${d.skipped} skipped`);
        // Every skipped operation is listed with its reason.
        expect(outcome.app!.skipped.every((s) => s.reason.length > 0 && outcome.stdout.includes(`  ${s.what}: ${s.reason}`))).to.equal(true);

        const loaded = await loadDefinitions(dir);
        expect(loaded.ok ? [] : loaded.problems.slice(0, 5)).to.deep.equal([]);
        expect(loaded.warnings).to.deep.equal([]);
        const format = await formatFolder(dir, { write: false });
        expect(format.files.filter((f) => f.status !== 'canonical').map((f) => f.file)).to.deep.equal([]);

        const failures: string[] = [];
        const summary = await runDefinitionTests(dir, { app: d.slug, write: (line) => (line.startsWith('✔') ? undefined : failures.push(line)) });
        expect(failures.slice(0, 12)).to.deep.equal([`${d.cases} passed, 0 failed`]);
        expect(summary).to.deep.equal({ passed: d.cases, failed: 0, exitCode: 0 });
      } finally {
        await tmp.remove();
      }
    });
  }
});

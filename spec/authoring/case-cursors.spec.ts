import path from 'node:path';
import { expect } from 'chai';
import { runDefinitionTests } from '../../engine/authoring/definition-tests.ts';
import { ROOT } from '../helpers/process.ts';
import { definitionsFor } from '../helpers/upstream.ts';

const ACTIONS = 'pager/versions/1/actions';

/** Signed cursors (NextUrl, Offset, Page) are written decoded in offline cases: encoded for the run's action and connection, decoded to be compared. */
describe('npm run test:definitions: cursors written decoded', function () {
  this.timeout(30_000);

  async function run(files: Record<string, string>): Promise<{ lines: string[]; passed: number; failed: number }> {
    const defs = await definitionsFor(path.join(ROOT, 'spec/fixtures/pagination'), 'https://api.pager.example', files);
    try {
      const lines: string[] = [];
      const summary = await runDefinitionTests(defs.dir, { write: (line) => lines.push(line) });
      return { lines, passed: summary.passed, failed: summary.failed };
    } finally {
      await defs.cleanup();
    }
  }

  it('encodes { offset }, { page } and { url } cursors of arguments, and compares meta.cursor decoded', async () => {
    const { lines, passed, failed } = await run({
      [`${ACTIONS}/list-offset.test.yaml`]: `cases:
  - name: sends the offset of the cursor and gives the next one
    connection: { credentials: { apiKey: k } }
    arguments: { cursor: { offset: 2 } }
    request: { url: https://api.pager.example/api/contacts, query: { limit: "2", offset: "2" } }
    response: { status: 200, body: { contacts: [{ id: 3 }, { id: 4 }], total: 9 } }
    expect: { success: true, meta: { cursor: { offset: 4 } } }
`,
      [`${ACTIONS}/list-page.test.yaml`]: `cases:
  - name: sends the page of the cursor and gives the next one
    connection: { credentials: { apiKey: k } }
    arguments: { cursor: { page: 2 } }
    request: { query: { per_page: "2", page: "2" } }
    response: { status: 200, body: [{ id: 3 }, { id: 4 }] }
    expect: { success: true, meta: { cursor: { page: 3 } } }
`,
      [`${ACTIONS}/list-odata.test.yaml`]: `cases:
  - name: requests the URL of the cursor and gives the next one
    connection: { credentials: { apiKey: k } }
    arguments: { cursor: { url: "https://api.pager.example/api/people?$skiptoken=X2" } }
    request: { url: https://api.pager.example/api/people, query: { $skiptoken: X2 } }
    response: { status: 200, body: { value: [{ id: p2 }], "@odata.nextLink": "https://api.pager.example/api/people?$skiptoken=X3" } }
    expect: { success: true, meta: { cursor: { url: "https://api.pager.example/api/people?$skiptoken=X3" } } }
`,
    });
    expect(lines.filter((line) => !line.startsWith('✔'))).to.deep.equal(['3 passed, 0 failed']);
    expect({ passed, failed }).to.deep.equal({ passed: 3, failed: 0 });
  });

  it('reports a decoded cursor that differs by its path', async () => {
    const { lines, failed } = await run({
      [`${ACTIONS}/list-offset.test.yaml`]: `cases:
  - name: expects the wrong next offset
    connection: { credentials: { apiKey: k } }
    arguments: { cursor: { offset: 2 } }
    response: { status: 200, body: { contacts: [{ id: 3 }, { id: 4 }] } }
    expect: { meta: { cursor: { offset: 5 } } }
`,
    });
    expect(failed).to.equal(1);
    expect(lines).to.include('    expect.meta.cursor.offset: expected 5, got 4');
  });
});

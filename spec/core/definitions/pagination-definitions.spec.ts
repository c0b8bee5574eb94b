import fs from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { loadDefinitions } from '../../../engine/core/definitions/loader.ts';
import { formatProblem } from '../../../engine/core/definitions/problems.ts';
import { ROOT } from '../../helpers/process.ts';
import { definitionsFor } from '../../helpers/upstream.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/pagination');
const ACTIONS = 'pager/versions/1/actions';
const action = (id: string, rest: string) => `id: ${id}\nslug: ${id}\nname: ${id}\noperation: list\nmethod: GET\npath: /${id}\n${rest}`;

/** What `validate` says about paginations: located, in the author's words. */
describe('pagination in definitions', () => {
  async function problems(files: Record<string, string>): Promise<string[]> {
    const defs = await definitionsFor(FIXTURE, 'https://api.pager.example', files);
    try {
      return (await loadDefinitions(defs.dir)).problems.map((p) => formatProblem(p, (file) => file));
    } finally {
      await defs.cleanup();
    }
  }

  it('loads every kind, an action overriding the API, and { type: None }', async () => {
    expect(await problems({})).to.deep.equal([]);
  });

  it("refuses a Body cursor on a paged GET: from the API's pagination at the method, from the action's at its location", async () => {
    const found = await problems({
      'pager/versions/1/api.yaml': 'baseUrl: https://api.pager.example/api\nauths:\n  - key\npagination:\n  type: Cursor\n  location: Body\n  key: cursor\n',
      [`${ACTIONS}/list-page.yaml`]: action('list-page', 'pagination:\n  type: Page\n  location: Body\n  pageKey: page\n'),
    });
    expect(found).to.deep.equal([
      "pager/versions/1/actions/list-cursor.yaml:5:9 PAGINATION_BODY_ON_GET list action list-cursor is a GET, which sends no body, but api.yaml's pagination puts the cursor in the Body: use location: Query, or give the action a pagination of its own",
      'pager/versions/1/actions/list-page.yaml:9:13 PAGINATION_BODY_ON_GET list action list-page is a GET, which sends no body, but its pagination puts the page number in the Body: use location: Query, or give the action a pagination of its own',
    ]);
  });

  it('says what a NextUrl pagination needs, locates a JSONata error in an expression, and names the allowed properties', async () => {
    const found = await problems({
      [`${ACTIONS}/list-link.yaml`]: action('list-link', 'pagination:\n  type: NextUrl\n'),
      [`${ACTIONS}/list-odata.yaml`]: action('list-odata', 'pagination:\n  type: NextUrl\n  from: LinkHeader\n  next: body.next\n'),
      [`${ACTIONS}/list-page.yaml`]: action('list-page', 'pagination:\n  type: Page\n  location: Query\n  pageKey: page\n  totalPages: body.(\n'),
      [`${ACTIONS}/list-offset.yaml`]: action('list-offset', 'pagination:\n  type: Offset\n  location: Query\n  offsetKey: offset\n  limt: 3\n'),
    });
    expect(found).to.deep.equal([
      'pager/versions/1/actions/list-link.yaml:8:3 SCHEMA_INVALID pagination NextUrl needs from: LinkHeader (the Link header) or next: <expression> (the URL in the response)',
      'pager/versions/1/actions/list-odata.yaml:10:9 SCHEMA_INVALID pagination NextUrl takes the next URL from one place: from: LinkHeader or next: <expression>, not both',
      'pager/versions/1/actions/list-offset.yaml:11:3 SCHEMA_UNKNOWN_PROPERTY property "limt" is not allowed in pagination (allowed: type, location, offsetKey, limitKey, total, last)',
      'pager/versions/1/actions/list-page.yaml:11:20 JSONATA_SYNTAX JSONata: Expected ")" before end of expression (S0203)',
    ]);
  });

  it("loads the complete action examples of docs/definitions.md's Pagination section", async () => {
    const guide = await fs.readFile(path.join(ROOT, 'docs/definitions.md'), 'utf8');
    const section = guide.slice(guide.indexOf('## Pagination'), guide.indexOf('## A worked example'));
    const examples = [...section.matchAll(/```yaml\n# actions\/([a-z-]+)\.yaml\n(id: [\s\S]*?)```/g)].map((m) => [`${ACTIONS}/${m[1]}.yaml`, m[2]!] as const);
    expect(examples.map(([file]) => path.basename(file))).to.deep.equal(['search-pages.yaml', 'list-users.yaml', 'query.yaml', 'list-contacts.yaml', 'search-issues.yaml', 'list-repos.yaml']);
    expect(await problems(Object.fromEntries(examples))).to.deep.equal([]);
  });
});

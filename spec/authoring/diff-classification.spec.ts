import { expect } from 'chai';
import { parse, stringify } from 'yaml';
import { diffDefinitions } from '../../engine/authoring/definition-diff.ts';
import { DefinitionsLoader } from '../../engine/core/definitions/loader.ts';
import { formatProblem } from '../../engine/core/definitions/problems.ts';
import type { DefinitionsSnapshot } from '../../engine/core/definitions/snapshot.ts';
import { readSourceFiles, sourceFile } from '../../engine/core/definitions/source-files.ts';
import { VALID } from '../support/definition-fixtures.ts';

/** A definitions folder in memory: path → parsed YAML value, edited as values and loaded by the real loader. */
type Folder = Map<string, any>;

const V1 = 'acme/versions/1';

async function validFolder(): Promise<Folder> {
  const { files } = await readSourceFiles(VALID);
  return new Map(files.map((f) => [f.file, parse(f.text)]));
}

function load(folder: Folder): DefinitionsSnapshot {
  const result = new DefinitionsLoader().load([...folder].map(([file, value]) => sourceFile(file, stringify(value))));
  if (!result.ok) throw new Error(result.problems.map((p) => formatProblem(p)).join('\n'));
  return result.snapshot;
}

const argument = (folder: Folder, action: string, key: string) => folder.get(`${V1}/actions/${action}.yaml`).arguments.find((a: { key: string }) => a.key === key);

function copyVersion(folder: Folder, from: string, to: string): void {
  for (const [file, value] of [...folder]) if (file.startsWith(`acme/versions/${from}/`)) folder.set(file.replace(`/versions/${from}/`, `/versions/${to}/`), structuredClone(value));
}

interface Case {
  change: string;
  /** Edits the base folder before the head is made (optional). */
  base?: (folder: Folder) => void;
  head: (folder: Folder) => void;
  expected: [severity: string, where: string, what: string][];
}

const CASES: Case[] = [
  { change: 'an action removed', head: (f) => f.delete(`${V1}/actions/create-contact.yaml`), expected: [['breaking', 'action create-contact', 'removed']] },
  {
    change: 'an action added',
    head: (f) => f.set(`${V1}/actions/count-lists.yaml`, { ...f.get(`${V1}/actions/list-lists.yaml`), id: 'count-lists', slug: 'count-lists' }),
    expected: [['compatible', 'action count-lists', 'added']],
  },
  {
    change: 'an argument removed',
    head: (f) => (f.get(`${V1}/actions/create-contact.yaml`).arguments = f.get(`${V1}/actions/create-contact.yaml`).arguments.filter((a: { key: string }) => a.key !== 'birthday')),
    expected: [['breaking', 'action create-contact, argument birthday', 'removed: callers that send it are refused']],
  },
  { change: 'an argument becoming required', head: (f) => (argument(f, 'list-contacts', 'tags').required = true), expected: [['breaking', 'action list-contacts, argument tags', 'now required']] },
  {
    change: 'an argument becoming required with a default',
    head: (f) => Object.assign(argument(f, 'list-contacts', 'tags'), { required: true, default: ['vip'] }),
    expected: [
      ['noted', 'action list-contacts, argument tags', 'default (none) → ["vip"]'],
      ['compatible', 'action list-contacts, argument tags', 'now required (its default fills it)'],
    ],
  },
  {
    change: 'a new required argument without a default',
    head: (f) => f.get(`${V1}/actions/create-contact.yaml`).arguments.push({ key: 'owner', dataType: 'String', location: 'Body', required: true }),
    expected: [['breaking', 'action create-contact, argument owner', 'added, required without a default']],
  },
  {
    change: 'a new optional argument',
    head: (f) => f.get(`${V1}/actions/create-contact.yaml`).arguments.push({ key: 'owner', dataType: 'String', location: 'Body' }),
    expected: [['compatible', 'action create-contact, argument owner', 'added']],
  },
  {
    change: 'a dataType change',
    head: (f) => {
      Object.assign(argument(f, 'create-contact', 'birthday'), { dataType: 'String' });
      delete argument(f, 'create-contact', 'birthday').format;
    },
    expected: [
      ['breaking', 'action create-contact, argument birthday', 'dataType Date → String'],
      ['noted', 'action create-contact, argument birthday', 'format Date → (none)'],
    ],
  },
  { change: 'a location change', head: (f) => (argument(f, 'list-contacts', 'tags').location = 'Body'), expected: [['breaking', 'action list-contacts, argument tags', 'location Query → Body']] },
  {
    change: 'an externalKey change',
    head: (f) => (argument(f, 'list-contacts', 'pageSize').externalKey = 'limit'),
    expected: [['breaking', 'action list-contacts, argument pageSize', 'externalKey page_size → limit']],
  },
  {
    change: 'a list option removed',
    head: (f) => f.get(`${V1}/api.yaml`).arguments[0].list.options.pop(),
    expected: [['breaking', 'api, argument region', 'list option "us" removed']],
  },
  {
    change: 'a list option added',
    head: (f) => f.get(`${V1}/api.yaml`).arguments[0].list.options.push({ value: 'ap', label: 'Asia Pacific' }),
    expected: [['compatible', 'api, argument region', 'list option "ap" added']],
  },
  {
    change: 'a multipleValues delimiter change',
    head: (f) => (argument(f, 'list-contacts', 'tags').multipleValues.delimiter = ';'),
    expected: [['breaking', 'action list-contacts, argument tags', 'multipleValues.delimiter , → ;']],
  },
  {
    change: 'value rules added or tightened',
    // pageSize is hidden in the fixture; shown here, so callers send it and its rules can refuse them.
    base: (f) => Object.assign(argument(f, 'list-contacts', 'pageSize'), { hidden: false, minimum: 1, maximum: 100 }),
    head: (f) => {
      Object.assign(argument(f, 'list-contacts', 'pageSize'), { hidden: false, integer: true, minimum: 5, maximum: 50 });
      Object.assign(argument(f, 'create-contact', 'email'), { minLength: 3, pattern: '@', format: 'email' });
    },
    expected: [
      ['breaking', 'action create-contact, argument email', 'minLength (none) → 3: shorter values are refused'],
      ['breaking', 'action create-contact, argument email', 'pattern (none) → @: values that do not match are refused'],
      ['breaking', 'action create-contact, argument email', 'format (none) → email: values of another format are refused'],
      ['breaking', 'action list-contacts, argument pageSize', 'integer (none) → true: fractions are refused'],
      ['breaking', 'action list-contacts, argument pageSize', 'minimum 1 → 5: smaller values are refused'],
      ['breaking', 'action list-contacts, argument pageSize', 'maximum 100 → 50: larger values are refused'],
    ],
  },
  {
    change: 'value rules added to a hidden argument (no caller sends it; its default is checked at load)',
    head: (f) => Object.assign(argument(f, 'list-contacts', 'pageSize'), { integer: true, minimum: 1, maximum: 100 }),
    expected: [
      ['noted', 'action list-contacts, argument pageSize', 'integer (none) → true (hidden: callers send no value, its default is checked at load)'],
      ['noted', 'action list-contacts, argument pageSize', 'minimum (none) → 1 (hidden: callers send no value, its default is checked at load)'],
      ['noted', 'action list-contacts, argument pageSize', 'maximum (none) → 100 (hidden: callers send no value, its default is checked at load)'],
    ],
  },
  {
    change: 'value rules removed or loosened',
    base: (f) => {
      Object.assign(argument(f, 'list-contacts', 'pageSize'), { integer: true, minimum: 5, maximum: 50 });
      Object.assign(argument(f, 'create-contact', 'email'), { minLength: 3, pattern: '@', format: 'email' });
    },
    head: (f) => {
      const pageSize = argument(f, 'list-contacts', 'pageSize');
      delete pageSize.integer;
      Object.assign(pageSize, { minimum: 1, maximum: 100 });
      const email = argument(f, 'create-contact', 'email');
      delete email.pattern;
      delete email.format;
      email.minLength = 1;
    },
    expected: [
      ['compatible', 'action create-contact, argument email', 'minLength 3 → 1'],
      ['compatible', 'action create-contact, argument email', 'pattern @ → (none)'],
      ['compatible', 'action create-contact, argument email', 'format email → (none)'],
      ['compatible', 'action list-contacts, argument pageSize', 'integer true → (none)'],
      ['compatible', 'action list-contacts, argument pageSize', 'minimum 5 → 1'],
      ['compatible', 'action list-contacts, argument pageSize', 'maximum 50 → 100'],
    ],
  },
  {
    change: 'a Date output format change is only noted',
    head: (f) => (argument(f, 'create-contact', 'birthday').format = 'UnixSeconds'),
    expected: [['noted', 'action create-contact, argument birthday', 'format Date → UnixSeconds']],
  },
  {
    change: 'an argument becoming hidden',
    head: (f) => Object.assign(argument(f, 'create-contact', 'birthday'), { hidden: true }),
    expected: [['breaking', 'action create-contact, argument birthday', 'now hidden: callers that send it are refused']],
  },
  {
    change: 'a Lookup turning strict',
    head: (f) => (argument(f, 'list-contacts', 'listId').list.strict = true),
    expected: [['breaking', 'action list-contacts, argument listId', 'list.strict (none) → true: runs look the value up and refuse one not on the first page of list-lists']],
  },
  {
    change: 'a Lookup no longer strict',
    base: (f) => (argument(f, 'list-contacts', 'listId').list.strict = true),
    head: (f) => delete argument(f, 'list-contacts', 'listId').list.strict,
    expected: [['compatible', 'action list-contacts, argument listId', 'list.strict true → (none): runs send the value as given']],
  },
  {
    change: 'a Lookup searchArgument added',
    base: (f) => (f.get(`${V1}/actions/list-lists.yaml`).arguments = [{ key: 'query', dataType: 'String', location: 'Query' }]),
    head: (f) => (argument(f, 'list-contacts', 'listId').list.searchArgument = 'query'),
    expected: [['noted', 'action list-contacts, argument listId', 'list.searchArgument (none) → query']],
  },
  {
    change: 'allowSlashes turned on (the same value reaches another path)',
    base: (f) => {
      f.get(`${V1}/actions/create-contact.yaml`).path = '/contacts/:email';
      Object.assign(argument(f, 'create-contact', 'email'), { location: 'Param' });
    },
    head: (f) => {
      f.get(`${V1}/actions/create-contact.yaml`).path = '/contacts/:email';
      Object.assign(argument(f, 'create-contact', 'email'), { location: 'Param', allowSlashes: true });
    },
    expected: [
      ['noted', 'action create-contact, argument email', 'allowSlashes (none) → true'],
    ],
  },
  {
    change: 'asBody turned on (the address fields move to the top level of the body)',
    head: (f) => (argument(f, 'create-contact', 'address').asBody = true),
    expected: [['breaking', 'action create-contact, argument address', 'asBody (none) → true']],
  },
  { change: 'a hidden default change', head: (f) => (argument(f, 'list-contacts', 'pageSize').default = 25), expected: [['noted', 'action list-contacts, argument pageSize', 'hidden default 50 → 25']] },
  {
    change: 'a response mapping change',
    head: (f) => (f.get(`${V1}/actions/list-lists.yaml`).response = '{ "success": true, "data": body.items }'),
    expected: [['noted', 'action list-lists', 'response mapping changed: check the data returned']],
  },
  {
    change: 'the id argument of a delete set',
    base: (f) => f.set(`${V1}/actions/delete-list.yaml`, { id: 'delete-list', slug: 'delete-list', name: 'Delete a list', operation: 'delete', method: 'DELETE', path: '/lists', arguments: [{ key: 'listRef', dataType: 'String', location: 'Query', required: true }] }),
    head: (f) => (f.get(`${V1}/actions/delete-list.yaml`).idArgument = 'listRef'),
    expected: [['noted', 'action delete-list', 'idArgument (none) → listRef: check the id a delete returns']],
  },
  {
    change: 'wording only',
    head: (f) => Object.assign(argument(f, 'create-contact', 'email'), { label: 'Email address', description: 'Where we write.' }),
    expected: [
      ['compatible', 'action create-contact, argument email', 'label (none) → Email address'],
      ['compatible', 'action create-contact, argument email', 'description (none) → Where we write.'],
    ],
  },
  {
    change: 'an auth removed',
    base: (f) => {
      f.set(`${V1}/auths/token.yaml`, { type: 'Bearer', id: 'token', token: '{{token}}', arguments: [{ key: 'token', dataType: 'String', required: true }] });
      f.get(`${V1}/api.yaml`).auths.push('token');
    },
    head: (f) => {
      f.delete(`${V1}/auths/token.yaml`);
      f.get(`${V1}/api.yaml`).auths.pop();
    },
    expected: [['breaking', 'auth token', 'removed: connections using it stop working']],
  },
  {
    change: 'an auth argument newly required',
    head: (f) => f.get(`${V1}/auths/api-key.yaml`).arguments.push({ key: 'account', dataType: 'String', required: true }),
    expected: [['breaking', 'auth api-key, argument account', 'added, required without a default']],
  },
  {
    change: 'a published pointer moving backwards',
    base: (f) => {
      copyVersion(f, '1', '2');
      f.get('acme/app.yaml').published = 2;
    },
    head: (f) => (f.get('acme/app.yaml').published = 1),
    expected: [['breaking', 'app acme', 'published 2 → 1: moves backwards']],
  },
  {
    change: 'a published pointer moving forwards, with the new version',
    head: (f) => {
      copyVersion(f, '1', '2');
      f.get('acme/app.yaml').published = 2;
    },
    expected: [
      ['compatible', 'app acme', 'published 1 → 2'],
      ['compatible', 'version 2', 'added'],
    ],
  },
  {
    change: 'a published pointer moving forwards to a version without an action: breaking for clients of published',
    head: (f) => {
      copyVersion(f, '1', '2');
      f.delete('acme/versions/2/actions/create-contact.yaml');
      f.get('acme/app.yaml').published = 2;
    },
    expected: [
      ['compatible', 'app acme', 'published 1 → 2'],
      ['breaking', 'action create-contact', 'removed'],
      ['compatible', 'version 2', 'added'],
    ],
  },
  {
    change: 'a numbered version removed',
    base: (f) => copyVersion(f, '1', '2'),
    head: (f) => {
      for (const file of [...f.keys()]) if (file.startsWith('acme/versions/2/')) f.delete(file);
    },
    expected: [['breaking', 'version 2', 'removed']],
  },
  { change: 'an app slug change', head: (f) => (f.get('acme/app.yaml').slug = 'acme'), expected: [['breaking', 'app acme', 'slug acme-crm → acme: universal paths change']] },
  { change: 'app categories added', head: (f) => (f.get('acme/app.yaml').categories = ['crm', 'marketing']), expected: [['compatible', 'app acme', 'categories none → crm, marketing']] },
  {
    change: 'app categories reordered',
    base: (f) => (f.get('acme/app.yaml').categories = ['crm', 'marketing']),
    head: (f) => (f.get('acme/app.yaml').categories = ['marketing', 'crm']),
    expected: [['compatible', 'app acme', 'categories crm, marketing → marketing, crm']],
  },
  {
    change: 'pagination removed',
    head: (f) => delete f.get(`${V1}/api.yaml`).pagination,
    expected: [['breaking', 'api', 'pagination removed: cursors clients hold are no longer sent']],
  },
  {
    change: "the API's default appError mapping added",
    head: (f) => (f.get(`${V1}/api.yaml`).appError = '{ "code": body.error.code, "message": body.error.message }'),
    expected: [['noted', 'api', 'default appError mapping added: check meta.appError of failed calls']],
  },
  {
    change: "the API's rate-limit declaration: which answers are rate limits, the reset header and the budget",
    head: (f) => Object.assign(f.get(`${V1}/api.yaml`).retry, { when: 'status = 429 or status = 403', resetHeader: { name: 'X-RateLimit-Reset' }, budgetMs: 20000 }),
    expected: [
      ['noted', 'api', 'retry.when added: which answers are rate limits, or retried, changes'],
      ['compatible', 'api', 'retry.budgetMs 60000 → 20000'],
      ['compatible', 'api', 'retry.resetHeader (none) → {"name":"x-ratelimit-reset","format":"UnixSeconds"}'],
    ],
  },
  {
    change: "a bound on the API's calls at once added (api.yaml concurrency)",
    head: (f) => (f.get(`${V1}/api.yaml`).concurrency = 10),
    expected: [['noted', 'api', 'concurrency (none) → 10: busy connections may answer 503 UPSTREAM_BUSY sooner']],
  },
  {
    change: "the API's calls at once raised",
    base: (f) => (f.get(`${V1}/api.yaml`).concurrency = 10),
    head: (f) => (f.get(`${V1}/api.yaml`).concurrency = 20),
    expected: [['compatible', 'api', 'concurrency 10 → 20']],
  },
  {
    change: "the API's bound on calls at once removed",
    base: (f) => (f.get(`${V1}/api.yaml`).concurrency = 10),
    head: (f) => delete f.get(`${V1}/api.yaml`).concurrency,
    expected: [['compatible', 'api', 'concurrency 10 → (none)']],
  },
  {
    change: "the API's pagination kind changed",
    head: (f) => (f.get(`${V1}/api.yaml`).pagination = { type: 'NextUrl', from: 'LinkHeader' }),
    expected: [['breaking', 'api', 'pagination type Cursor → NextUrl: cursors clients hold are refused']],
  },
  {
    change: "the API's pagination key changed",
    head: (f) => (f.get(`${V1}/api.yaml`).pagination.key = 'after'),
    expected: [['noted', 'api', 'pagination.key cursor → after']],
  },
  {
    change: "an action's own pagination added, of the API's kind",
    head: (f) => (f.get(`${V1}/actions/list-lists.yaml`).pagination = { type: 'Cursor', location: 'Query', key: 'cursor', next: 'body.next' }),
    expected: [['noted', 'action list-lists', 'pagination (none) → {"type":"Cursor","location":"Query","key":"cursor","next"...']],
  },
  {
    change: 'an OAuth auth sends its client as Basic, keeps a callback parameter and asks the provider for its accounts',
    base: (f) => {
      f.set(`${V1}/auths/oauth2.yaml`, { type: 'OAuth2AuthorizationCode', id: 'oauth2', authorizeUrl: 'https://login.acme.example/authorize', tokenUrl: 'https://login.acme.example/token' });
      f.get(`${V1}/api.yaml`).auths.push('oauth2');
    },
    head: (f) =>
      Object.assign(f.get(`${V1}/auths/oauth2.yaml`), {
        clientAuthentication: 'Header',
        callbackMetadata: { realmId: 'realmId' },
        postAuthorization: { url: 'https://api.acme.example/connections', metadata: { tenantId: 'tenantId' } },
      }),
    expected: [
      ['noted', 'auth oauth2', 'callbackMetadata (none) → {"realmId":"realmId"}'],
      ['noted', 'auth oauth2', 'clientAuthentication (none) → Header'],
      ['noted', 'auth oauth2', 'postAuthorization (none) → {"url":"https://api.acme.example/connections","metadata":...'],
    ],
  },
  {
    change: 'an escape of another style, a date sent as an HTTP date',
    head: (f) => {
      argument(f, 'list-contacts', 'tags').escape = { style: 'Sql' };
      argument(f, 'create-contact', 'birthday').format = 'HttpDate';
    },
    expected: [
      ['noted', 'action create-contact, argument birthday', 'format Date → HttpDate'],
      ['noted', 'action list-contacts, argument tags', 'escape (none) → {"style":"Sql"}'],
    ],
  },
  {
    change: 'arrays of a form body written another way, by the API and by an argument',
    base: (f) => (f.get(`${V1}/api.yaml`).bodyEncoding = 'Form'),
    head: (f) => {
      f.get(`${V1}/api.yaml`).arrayStyle = 'Repeat';
      argument(f, 'create-contact', 'birthday').arrayStyle = 'Comma';
    },
    expected: [
      ['noted', 'api', 'arrayStyle Indices → Repeat: arrays in form bodies are written another way'],
      ['noted', 'action create-contact, argument birthday', 'arrayStyle (none) → Comma'],
    ],
  },
  {
    change: "a page pagination that sends its first page, a cursor's next page another request",
    base: (f) => (f.get(`${V1}/actions/list-lists.yaml`).pagination = { type: 'Page', location: 'Query', pageKey: 'page' }),
    head: (f) => {
      f.get(`${V1}/actions/list-lists.yaml`).pagination.sendFirstPage = true;
      f.get(`${V1}/api.yaml`).pagination.nextRequest = { method: 'POST', path: '/contacts/continue' };
    },
    expected: [
      ['noted', 'api', 'pagination.nextRequest (none) → {"method":"POST","path":"/contacts/continue"}'],
      ['noted', 'action list-lists', 'pagination.sendFirstPage (none) → true'],
    ],
  },
  {
    change: 'an action no longer pages',
    head: (f) => (f.get(`${V1}/actions/list-lists.yaml`).pagination = { type: 'None' }),
    expected: [['breaking', 'action list-lists', 'pagination Cursor → None: cursors clients hold are refused']],
  },
  {
    change: 'the proxy switched off',
    head: (f) => (f.get(`${V1}/api.yaml`).proxy = false),
    expected: [['breaking', 'api', 'proxy switched off: proxied calls answer 403 PROXY_DISABLED']],
  },
  {
    change: 'the proxy switched on again',
    base: (f) => (f.get(`${V1}/api.yaml`).proxy = false),
    head: (f) => delete f.get(`${V1}/api.yaml`).proxy,
    expected: [['compatible', 'api', 'proxy switched on']],
  },
  {
    change: 'the proxy limited to paths',
    head: (f) => (f.get(`${V1}/api.yaml`).proxy = { paths: ['/contacts'] }),
    expected: [['breaking', 'api', 'proxy paths limited to /contacts: proxied calls elsewhere answer 403 PROXY_PATH_NOT_ALLOWED']],
  },
  {
    change: "the proxy's paths changed, and its forwarded headers",
    base: (f) => (f.get(`${V1}/api.yaml`).proxy = { paths: ['/contacts', '/lists'], headers: ['Idempotency-Key'] }),
    head: (f) => (f.get(`${V1}/api.yaml`).proxy = { paths: ['/contacts', '/tags/'], headers: ['X-Api-Version'] }),
    expected: [
      ['breaking', 'api', 'proxy path /lists removed: proxied calls there answer 403 PROXY_PATH_NOT_ALLOWED'],
      ['noted', 'api', 'proxy header idempotency-key no longer forwarded'],
      ['compatible', 'api', 'proxy path /tags/ added'],
      ['compatible', 'api', 'proxy header x-api-version forwarded'],
    ],
  },
  {
    change: "the proxy's path limit lifted",
    base: (f) => (f.get(`${V1}/api.yaml`).proxy = { paths: ['/contacts'] }),
    head: (f) => (f.get(`${V1}/api.yaml`).proxy = true),
    expected: [['compatible', 'api', 'proxy paths no longer limited']],
  },
];

describe('npm run diff: classification', () => {
  for (const c of CASES) {
    it(`${c.change}: ${[...new Set(c.expected.map((e) => e[0]))].join(', ')}`, async () => {
      const base = await validFolder();
      c.base?.(base);
      const head: Folder = new Map([...base].map(([file, value]) => [file, structuredClone(value)]));
      c.head(head);
      const changes = diffDefinitions(load(base), load(head));
      expect(changes.map((ch) => [ch.severity, ch.where, ch.what])).to.deep.equal(c.expected);
    });
  }

  it('does not count changes to an app with only a draft as released', async () => {
    const base = await validFolder();
    copyVersion(base, '1', 'draft');
    for (const file of [...base.keys()]) if (file.startsWith(`${V1}/`)) base.delete(file);
    delete base.get('acme/app.yaml').published;
    const head: Folder = new Map([...base].map(([file, value]) => [file, structuredClone(value)]));
    head.get('acme/app.yaml').slug = 'acme';
    const changes = diffDefinitions(load(base), load(head));
    expect(changes.map((ch) => [ch.released, ch.severity, ch.what])).to.deep.equal([[false, 'breaking', 'slug acme-crm → acme: universal paths change']]);
  });

  it('finds no change between a folder and itself', async () => {
    const folder = await validFolder();
    expect(diffDefinitions(load(folder), load(folder))).to.deep.equal([]);
  });

  it('marks draft changes as not released, numbered ones and the app itself as released', async () => {
    const base = await validFolder();
    copyVersion(base, '1', 'draft');
    const head: Folder = new Map([...base].map(([file, value]) => [file, structuredClone(value)]));
    head.delete('acme/versions/draft/actions/create-contact.yaml');
    head.delete(`${V1}/actions/create-contact.yaml`);
    head.get('acme/app.yaml').name = 'Acme';
    const changes = diffDefinitions(load(base), load(head));
    expect(changes.map((ch) => [ch.version, ch.released, ch.severity, ch.where])).to.deep.equal([
      [null, true, 'compatible', 'app acme'],
      ['1', true, 'breaking', 'action create-contact'],
      ['draft', false, 'breaking', 'action create-contact'],
    ]);
  });
});

import { expect } from 'chai';
import { parseDocument } from 'yaml';
import { DefinitionsLoader } from '../../../engine/core/definitions/loader.ts';
import { parseDefinitionFile } from '../../../engine/core/definitions/parsed-file.ts';
import { readSourceFiles, sourceFile, type SourceFile } from '../../../engine/core/definitions/source-files.ts';
import type { ProblemCode } from '../../../engine/core/definitions/problems.ts';
import { VALID } from '../../support/definition-fixtures.ts';

type Path = (string | number)[];
/** Set `path` to `value` (undefined deletes it) in one file of the valid folder. */
interface Mutation {
  file: string;
  path: Path;
  value: unknown;
  code: ProblemCode;
  /** Where the problem is reported when not at `path` (a rule about another field). */
  at?: Path;
}

const APP = 'acme/app.yaml';
const API = 'acme/versions/1/api.yaml';
const AUTH = 'acme/versions/1/auths/api-key.yaml';
const LIST = 'acme/versions/1/actions/list-contacts.yaml';
const CREATE = 'acme/versions/1/actions/create-contact.yaml';

const MUTATIONS: Mutation[] = [
  { file: APP, path: ['id'], value: undefined, code: 'SCHEMA_REQUIRED' },
  { file: APP, path: ['slug'], value: 'Acme CRM', code: 'SCHEMA_PATTERN' },
  { file: APP, path: ['published'], value: 0, code: 'SCHEMA_INVALID' },
  { file: APP, path: ['published'], value: 9, code: 'PUBLISHED_VERSION_MISSING' },
  { file: APP, path: ['owner'], value: 'sales', code: 'SCHEMA_UNKNOWN_PROPERTY' },
  { file: API, path: ['baseUrl'], value: 'ftp://acme.example', code: 'SCHEMA_PATTERN' },
  // A user name and password in the URL were dropped without a word: credentials belong in an auth.
  { file: API, path: ['baseUrl'], value: 'https://user:secret@acme.example/api', code: 'SCHEMA_PATTERN' },
  { file: API, path: ['auths'], value: [], code: 'SCHEMA_INVALID' },
  { file: API, path: ['auths', 0], value: 'oauth', code: 'AUTH_REF_UNRESOLVED' },
  { file: API, path: ['retry', 'maxAttempts'], value: 0, code: 'SCHEMA_INVALID' },
  { file: API, path: ['pagination', 'location'], value: 'Header', code: 'SCHEMA_ENUM' },
  { file: API, path: ['headers', 'X-Tenant'], value: '{{tenant}}', code: 'TEMPLATE_VARIABLE_UNKNOWN' },
  { file: API, path: ['arguments', 0, 'default'], value: 'asia', code: 'ARG_DEFAULT_TYPE' },
  // A broken file still counts by its file name: the API's reference to it is not reported too.
  { file: AUTH, path: ['id'], value: undefined, code: 'SCHEMA_REQUIRED' },
  { file: AUTH, path: ['type'], value: 'OAuth1', code: 'SCHEMA_ENUM' },
  { file: AUTH, path: ['parameterName'], value: undefined, code: 'SCHEMA_REQUIRED' },
  { file: AUTH, path: ['in'], value: 'Cookie', code: 'SCHEMA_ENUM' },
  { file: AUTH, path: ['value'], value: 'Bearer {{secret}}', code: 'TEMPLATE_VARIABLE_UNKNOWN' },
  { file: AUTH, path: ['arguments', 0, 'hidden'], value: true, code: 'ARG_HIDDEN_REQUIRED_NO_DEFAULT' },
  { file: LIST, path: ['operation'], value: 'fetch', code: 'SCHEMA_ENUM' },
  { file: LIST, path: ['method'], value: 'get', code: 'SCHEMA_ENUM' },
  { file: LIST, path: ['path'], value: 'lists/:listId/contacts', code: 'SCHEMA_PATTERN' },
  // A dot segment takes the request out of its place under baseUrl (the URL parser resolves it, %2e too).
  { file: LIST, path: ['path'], value: '/lists/:listId/../../admin', code: 'SCHEMA_PATTERN' },
  { file: LIST, path: ['path'], value: '/lists/:listId/%2e%2E/contacts', code: 'SCHEMA_PATTERN' },
  // An action path is not a template: {{listId}} was sent as %7B%7BlistId%7D%7D.
  { file: LIST, path: ['path'], value: '/lists/:listId/{{listId}}', code: 'SCHEMA_PATTERN' },
  { file: LIST, path: ['path'], value: '/lists/:listId/contacts/:tag', code: 'PATH_PARAM_MISSING' },
  { file: LIST, path: ['response'], value: '{ "data": body.contacts', code: 'JSONATA_SYNTAX' },
  { file: LIST, path: ['arguments', 0, 'list', 'type'], value: 'Dynamic', code: 'SCHEMA_ENUM' },
  { file: LIST, path: ['arguments', 0, 'list', 'action'], value: 'list-segments', code: 'LOOKUP_ACTION_MISSING' },
  { file: LIST, path: ['arguments', 0, 'location'], value: 'Query', code: 'PATH_PARAM_MISSING', at: ['path'] },
  { file: LIST, path: ['arguments', 1, 'default'], value: [50], code: 'ARG_DEFAULT_TYPE' },
  { file: LIST, path: ['arguments', 2, 'multipleValues', 'dataType'], value: 'List', code: 'SCHEMA_ENUM' },
  { file: LIST, path: ['arguments', 2, 'multipleValues', 'delimiter'], value: '', code: 'SCHEMA_INVALID' },
  { file: LIST, path: ['arguments', 2, 'mapper'], value: '$lowercase(value', code: 'JSONATA_SYNTAX' },
  { file: LIST, path: ['arguments', 2, 'escape'], value: { characters: "'" }, code: 'ARG_ESCAPE_INVALID' },
  { file: LIST, path: ['arguments', 2, 'escape'], value: { style: 'Sql', pairs: [{ from: "'", to: "''" }] }, code: 'ARG_ESCAPE_INVALID' },
  { file: LIST, path: ['arguments', 2, 'escape'], value: { style: 'Doubled' }, code: 'SCHEMA_ENUM' },
  { file: LIST, path: ['arguments', 2, 'component'], value: 'rich-text', code: 'SCHEMA_PATTERN' },
  { file: LIST, path: ['arguments', 2, 'default'], value: 'vip', code: 'ARG_DEFAULT_TYPE' },
  // list-contacts looks its options up with list-lists: still found while list-lists is broken.
  { file: 'acme/versions/1/actions/list-lists.yaml', path: ['id'], value: undefined, code: 'SCHEMA_REQUIRED' },
  { file: 'acme/versions/1/actions/list-lists.yaml', path: ['method'], value: 'FETCH', code: 'SCHEMA_ENUM' },
  { file: CREATE, path: ['arguments', 0, 'maxLength'], value: 1.5, code: 'SCHEMA_TYPE' },
  { file: CREATE, path: ['arguments', 0, 'dataType'], value: 'Number', code: 'ARG_MAX_LENGTH_NOT_STRING' },
  { file: CREATE, path: ['arguments', 1, 'externalKey'], value: 'address', code: 'ARG_CHILD_EXTERNAL_KEY', at: ['arguments', 2, 'externalKey'] },
  { file: CREATE, path: ['arguments', 2, 'parent'], value: 'email', code: 'ARG_PARENT_NOT_CONTAINER' },
  { file: CREATE, path: ['arguments', 0, 'default'], value: 42, code: 'ARG_DEFAULT_TYPE' },
  { file: CREATE, path: ['arguments', 2, 'list'], value: { type: 'Fixed', options: [] }, code: 'SCHEMA_INVALID' },
  { file: CREATE, path: ['arguments', 3, 'default'], value: 'not a date', code: 'ARG_DEFAULT_TYPE' },
  { file: CREATE, path: ['arguments', 3, 'format'], value: 'RFC2822', code: 'SCHEMA_ENUM' },
  { file: CREATE, path: ['arguments', 3, 'dataType'], value: 'String', code: 'ARG_FORMAT_NOT_DATE' },
  { file: CREATE, path: ['arguments', 3, 'list'], value: { type: 'Country' }, code: 'ARG_LIST_SETTINGS' },
  { file: CREATE, path: ['arguments', 0, 'minLength'], value: 300, code: 'ARG_RULE_RANGE' },
  { file: CREATE, path: ['arguments', 0, 'minimum'], value: 1, code: 'ARG_RULE_TYPE' },
  { file: CREATE, path: ['arguments', 0, 'pattern'], value: '^(a)\\1$', code: 'ARG_PATTERN_INVALID' },
  { file: CREATE, path: ['arguments', 0, 'format'], value: 'ISO8601', code: 'ARG_FORMAT_NOT_DATE' },
  { file: CREATE, path: ['arguments', 0, 'default'], value: 'x'.repeat(300), code: 'ARG_DEFAULT_RULE' },
  { file: CREATE, path: ['arguments', 3, 'format'], value: 'email', code: 'ARG_RULE_TYPE' },
];

/**
 * Mutation tests: each case starts from the one valid folder, changes one
 * field, and must yield exactly one problem, of the expected code, in the
 * changed file (and, for a changed value, on the line where it now is).
 */
describe('definition mutations: one broken field, one located problem', () => {
  let valid: SourceFile[];
  before(async () => {
    valid = (await readSourceFiles(VALID)).files;
  });

  for (const mutation of MUTATIONS) {
    const what = `${mutation.value === undefined ? 'deleting' : `setting ${JSON.stringify(mutation.value)} at`} ${mutation.path.join('.')}`;
    it(`${mutation.file}: ${what} -> ${mutation.code}`, () => {
      const files = valid.map((f) => (f.file === mutation.file ? mutate(f, mutation) : f));
      const result = new DefinitionsLoader().load(files);
      const problems = result.problems.map((p) => `${p.file} ${p.code}`);
      expect(problems).to.deep.equal([`${mutation.file} ${mutation.code}`]);
      const changed = files.find((f) => f.file === mutation.file)!;
      if (mutation.value !== undefined && mutation.code !== 'SCHEMA_UNKNOWN_PROPERTY') {
        // A value written as a block (a map, a list) may be reported at its first line or at the field inside it.
        const at = parseDefinitionFile(changed).parsed!.locate(mutation.at ?? mutation.path);
        expect(result.problems[0]!.line, result.problems[0]!.message).to.be.within(at.line, at.line + 3);
      }
    });
  }

  it('leaves the valid folder valid (every mutation above is its own break)', () => {
    expect(new DefinitionsLoader().load(valid).problems).to.deep.equal([]);
  });
});

function mutate(file: SourceFile, { path, value }: Mutation): SourceFile {
  const document = parseDocument(file.text);
  if (value === undefined) document.deleteIn(path);
  else document.setIn(path, value);
  return sourceFile(file.file, document.toString());
}

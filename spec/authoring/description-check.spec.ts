import path from 'node:path';
import { expect } from 'chai';
import { checkAgainstDescription } from '../../engine/authoring/description-check.ts';
import { checkDescriptions, DESCRIPTIONS_DIR, formatMismatch, heldVersion, readDescriptions } from '../../engine/authoring/description-fixtures.ts';
import { describedOperations } from '../../engine/authoring/openapi-operations.ts';
import { loadDefinitions } from '../../engine/core/definitions/loader.ts';
import type { ActionEntry, AppVersion, ArgumentEntry } from '../../engine/core/definitions/snapshot.ts';
import { ROOT } from './run-script.ts';

const loaded = await loadDefinitions(path.join(ROOT, 'definitions'));
if (!loaded.ok) throw new Error('definitions/ does not load (npm run validate)');
const snapshot = loaded.snapshot;
const descriptions = await readDescriptions(path.join(ROOT, DESCRIPTIONS_DIR));

/**
 * Every app whose provider publishes an API description is held to a trimmed
 * copy of it (spec/fixtures/descriptions/<app>/): each action's method and
 * path, arguments by name and location, the parameters it requires, its
 * Fixed options.
 */
describe("actions held to their provider's description (spec/fixtures/descriptions)", () => {
  it('keeps descriptions, each with its source and licence', () => {
    expect(descriptions.size).to.be.greaterThan(0);
  });

  for (const outcome of checkDescriptions(snapshot, descriptions)) {
    it(`${outcome.app}: its ${outcome.actions} actions match the description`, () => {
      expect(outcome.actions, `${outcome.app} has no actions to hold`).to.be.greaterThan(0);
      expect(outcome.mismatches.map(formatMismatch), 'mismatches').to.deep.equal([]);
      expect(outcome.unusedAllowances, 'allowances that match no mismatch any more: remove them').to.deep.equal([]);
    });
  }

  describe('fails naming the app, the action and what differs', () => {
    const intercom = heldVersion(snapshot, 'intercom')!;
    const operations = describedOperations(descriptions.get('intercom')!.document);
    /** The version with one action changed. */
    const changed = (id: string, change: (action: ActionEntry) => Partial<ActionEntry>): AppVersion => {
      const action = intercom.actions.get(id)!;
      return { ...intercom, actions: new Map([[id, { ...action, ...change(action) }]]) };
    };
    const argument = (action: ActionEntry, key: string, change: Partial<ArgumentEntry>) => action.arguments.map((a) => (a.key === key ? { ...a, ...change } : a));
    const check = (version: AppVersion) => checkAgainstDescription(version, operations).map(formatMismatch);

    it('a method or path the description does not have', () => {
      expect(check(changed('get-contact', () => ({ method: 'PATCH' })))).to.deep.equal([
        'app intercom, action get-contact: PATCH /contacts/:contactId (PATCH /contacts/{contactId} with the base URL) is not an operation of the description',
      ]);
      expect(check(changed('get-contact', () => ({ path: '/contact/:contactId' })))).to.have.length(1);
    });

    it('an argument in the wrong place, or under a name the operation does not take', () => {
      expect(check(changed('create-contact', (a) => ({ arguments: argument(a, 'email', { location: 'Query' }) })))).to.deep.equal([
        'app intercom, action create-contact: argument email (Query email) is not a query parameter of POST /contacts (the description has it in the body)',
      ]);
      expect(check(changed('create-contact', (a) => ({ arguments: argument(a, 'email', { externalKey: 'e_mail' }) })))).to.deep.equal([
        'app intercom, action create-contact: argument email (Body e_mail) is not a body parameter of POST /contacts',
      ]);
    });

    it('a Fixed option the description does not allow', () => {
      const contacts = describedOperations({
        paths: { '/contacts': { post: { requestBody: { content: { 'application/json': { schema: { type: 'object', properties: { role: { type: 'string', enum: ['user', 'lead'] }, email: { type: 'string' } } } } } } } } },
      });
      const role = intercom.actions.get('create-contact')!.arguments.find((a) => a.key === 'role')!;
      const version = (options: { value: string }[]) =>
        changed('create-contact', (a) => ({ arguments: argument(a, 'role', { list: { type: 'Fixed', options } } as Partial<ArgumentEntry>).filter((arg) => ['role', 'email'].includes(arg.key)) }));
      const own = (role.list as { options: { value: string }[] }).options;
      expect(checkAgainstDescription(version(own), contacts)).to.deep.equal([]);
      expect(checkAgainstDescription(version([...own, { value: 'visitor' }]), contacts).map(formatMismatch)).to.deep.equal([
        'app intercom, action create-contact: argument role offers "visitor", which POST /contacts does not allow ("user", "lead")',
      ]);
    });

    it('a parameter the description requires that no required argument sends', () => {
      const search = describedOperations({
        paths: { '/contacts/search': { post: { requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', required: ['query'], properties: { query: { type: 'object' }, pagination: { type: 'object' } } } } } } } } },
      });
      // Without the three arguments that build the query object (query.field, query.operator, query.value).
      const version = changed('search-contacts', (a) => ({ arguments: a.arguments.filter((arg) => !(arg.externalKey ?? '').startsWith('query.')) }));
      expect(checkAgainstDescription(changed('search-contacts', () => ({})), search)).to.deep.equal([]);
      expect(checkAgainstDescription(version, search).map(formatMismatch)).to.include(
        'app intercom, action search-contacts: the description requires body parameter query of POST /contacts/search; no required argument (or default) sends it',
      );
    });
  });
});

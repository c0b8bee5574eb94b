import fsp from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { loadDefinitions } from '../../../engine/core/definitions/loader.ts';
import { copyValid, tempDir } from '../../support/definition-fixtures.ts';

const ACTION = (operation: string, idArgument: string) => `id: remove-contact
slug: remove-contact
name: Remove a contact
operation: ${operation}
method: DELETE
path: /lists/:listId/contacts/:contactId
idArgument: ${idArgument}
arguments:
  - key: listId
    dataType: String
    location: Param
    required: true
  - key: contactId
    dataType: String
    location: Param
    required: true
  - key: note
    dataType: Object
    location: Body
  - key: noteText
    parent: note
    dataType: String
`;

describe('idArgument: which argument holds the deleted id', () => {
  const problemsOf = async (yaml: string) => {
    const tmp = await tempDir('defs-id-argument-');
    try {
      await copyValid(tmp.dir);
      await fsp.writeFile(path.join(tmp.dir, 'acme/versions/1/actions/remove-contact.yaml'), yaml);
      const result = await loadDefinitions(tmp.dir);
      return result.problems.map((p) => `${p.file}:${p.line}:${p.column} ${p.code} ${p.message}`);
    } finally {
      await tmp.remove();
    }
  };

  it('loads a delete naming one of its top-level arguments', async () => {
    expect(await problemsOf(ACTION('delete', 'listId'))).to.deep.equal([]);
  });

  it('refuses a name that is not an argument of the action, listing the ones it has', async () => {
    expect(await problemsOf(ACTION('delete', 'contact'))).to.deep.equal([
      'acme/versions/1/actions/remove-contact.yaml:7:13 ID_ARGUMENT_INVALID idArgument "contact" is not a top-level argument of this action (its arguments: listId, contactId, note)',
    ]);
  });

  it('refuses a child argument: the id is one value the caller gives, not part of an object', async () => {
    expect(await problemsOf(ACTION('delete', 'noteText'))).to.deep.equal([
      'acme/versions/1/actions/remove-contact.yaml:7:13 ID_ARGUMENT_INVALID idArgument "noteText" is not a top-level argument of this action (its arguments: listId, contactId, note)',
    ]);
  });

  it('refuses idArgument on an action that is not a delete: only a delete answers the id it removed', async () => {
    expect(await problemsOf(ACTION('update', 'contactId'))).to.deep.equal([
      'acme/versions/1/actions/remove-contact.yaml:7:13 ID_ARGUMENT_INVALID idArgument applies to operation delete only (this action is update); remove it',
    ]);
  });
});

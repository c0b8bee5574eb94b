import { stringify } from 'yaml';
import type { DefinitionKind } from '../../core/definitions/layout.ts';
import { formatDefinition } from '../canonical-yaml.ts';
import type { ImportedApp, TestCase } from './imported-app.ts';

/**
 * The files of an imported app, by path inside the app folder, as `npm run
 * fmt` writes them (canonical-yaml.ts): `app.yaml` (unless `withApp` is
 * false: a re-import leaves it alone), and under `versions/<version>/` the
 * API, one file per auth and per action, and each action's offline cases.
 * Comments go above each definition: where it came from in the description.
 */
export function renderFiles(imported: ImportedApp, version: string, withApp: boolean): Map<string, string> {
  const files = new Map<string, string>();
  const at = `versions/${version}`;
  if (withApp) files.set('app.yaml', definitionText('app', imported.app.comments, imported.app.definition));
  files.set(`${at}/api.yaml`, definitionText('api', imported.api.comments, imported.api.definition));
  for (const auth of imported.auths) files.set(`${at}/auths/${auth.definition.id}.yaml`, definitionText('auth', auth.comments, auth.definition));
  for (const action of imported.actions) {
    const id = action.definition.id;
    files.set(`${at}/actions/${id}.yaml`, definitionText('action', action.comments, action.definition));
    files.set(`${at}/actions/${id}.test.yaml`, casesText(imported.app.definition.slug, id, action.cases));
  }
  return files;
}

function definitionText(kind: DefinitionKind, comments: string[], definition: object): string {
  const text = `${comments.map((line) => `# ${line.replace(/\n/g, ' ')}`).join('\n')}\n${stringify(definition, { lineWidth: 0 })}`;
  const formatted = formatDefinition(kind, text);
  return formatted.ok ? formatted.text : text;
}

/** A case file: data, not a definition (fmt leaves it as written); block style, one key a line. */
function casesText(slug: string, actionId: string, cases: TestCase[]): string {
  const header = [
    `# Offline cases of ${actionId}, made by npm run import: npm run test:definitions -- ${slug}`,
    "# runs each through the engine with the network replaced by `response`. Replace the made-up values with recorded ones.",
  ];
  return `${header.join('\n')}\n${stringify({ cases }, { lineWidth: 0, aliasDuplicateObjects: false })}`;
}

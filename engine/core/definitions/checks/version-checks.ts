import type { ActionDefinition, Argument } from '../generated/definition-types.ts';
import type { VersionFiles } from '../definition-tree.ts';
import type { FileAnalysis } from '../file-analysis.ts';
import type { DefinitionPath } from '../parsed-file.ts';
import { problemAt, type DefinitionProblem } from '../problems.ts';
import { checkArguments } from './argument-checks.ts';
import { duplicateNames } from './duplicates.ts';
import { nextUrlSourceProblems, paginationProblems } from './pagination-checks.ts';
import { arrayStyleProblems } from './array-style-checks.ts';
import { idArgumentProblems } from './id-argument-checks.ts';
import { authHeaderNames, authHeaderProblems, headerArgumentProblems } from './header-argument-checks.ts';
import { urlTemplateProblems } from './url-template-checks.ts';

const PATH_PARAM = /:([A-Za-z_][A-Za-z0-9_]*)/g;
const PLACEHOLDER = /\{\{\s*([^{}\s]+)\s*\}\}/g;
/** End users' metadata (host variables for credential exchange) is named metadata.<field> and always allowed. */
const HOST_VARIABLE = /^metadata\.[A-Za-z0-9_]+$/;

/**
 * Within one version: unique action and auth ids, auth references that
 * resolve, Lookup lists naming actions of this version, path params matched
 * by Param arguments both ways, {{placeholders}} naming arguments, and the
 * argument rules of every action, auth and the API.
 */
export function checkVersion(version: VersionFiles): DefinitionProblem[] {
  const actions = version.actions;
  const problems = [
    ...duplicateNames(actions, 'id', 'ACTION_ID_DUPLICATE', 'action'),
    ...duplicateNames(actions, 'slug', 'ACTION_SLUG_DUPLICATE', 'action'),
    ...duplicateNames(version.auths, 'id', 'AUTH_ID_DUPLICATE', 'auth'),
  ];
  const actionIds = new Set(actions.map((a) => a.names.id).filter((id) => id !== undefined));
  const actionsById = new Map(actions.filter((a) => a.definition).map((a) => [a.definition!.id, a.definition!]));
  const authIds = new Set(version.auths.map((a) => a.names.id).filter((id) => id !== undefined));
  const api = version.api?.definition ? version.api : null;
  const apiArgumentKeys = (api?.definition?.arguments ?? []).map((a) => a.key);

  if (api) {
    api.definition!.auths.forEach((ref, i) => {
      if (!authIds.has(ref)) {
        const known = [...authIds].sort().join(', ') || 'none';
        problems.push(problemAt(api.parsed!.locate(['auths', i]), 'AUTH_REF_UNRESOLVED', `auth "${ref}" is not defined in ${version.folder}/auths/ (defined: ${known})`));
      }
    });
    const def = api.definition!;
    problems.push(...placeholders(api, [['baseUrl'], def.baseUrl], apiArgumentKeys));
    problems.push(...urlTemplateProblems(api, ['baseUrl'], def.baseUrl, def.originVariables ?? []), ...nextUrlSourceProblems(api));
    for (const [name, value] of Object.entries(def.headers ?? {})) problems.push(...placeholders(api, [['headers', name], value!], apiArgumentKeys));
  }

  const authHeaders = authHeaderNames(version.auths);
  for (const auth of version.auths) problems.push(...authHeaderProblems(auth));
  for (const file of [api, ...version.auths, ...actions]) {
    const definition = file?.definition as { arguments?: Argument[] } | null | undefined;
    if (!file || !definition) continue;
    const args = definition.arguments ?? [];
    problems.push(...checkArguments(file, args, file.place.kind === 'action'));
    problems.push(...headerArgumentProblems(file, args, authHeaders));
    problems.push(...lookups(file, args, actionIds, actionsById));
    problems.push(...arrayStyleProblems(file, args, api?.definition ?? undefined));
  }

  for (const auth of version.auths) {
    if (!auth.definition) continue;
    const known = [...apiArgumentKeys, ...(auth.definition.arguments ?? []).map((a) => a.key)];
    for (const [path, text] of templateStrings(auth.definition, [])) problems.push(...placeholders(auth, [path, text], known));
    const originVariables = auth.definition.type === 'CredentialExchange' ? (auth.definition.originVariables ?? []) : [];
    for (const [path, text] of templateStrings(auth.definition, [])) {
      if (isUrlPath(path)) problems.push(...urlTemplateProblems(auth, path, text, originVariables));
    }
  }

  for (const action of actions) {
    if (action.definition) problems.push(...pathParams(action), ...paginationProblems(action, api?.definition ?? undefined), ...nextUrlSourceProblems(action), ...idArgumentProblems(action));
  }
  return problems;
}

/** A Lookup runs an action of this version, with actionArguments and a searchArgument that action must have. */
function lookups(
  file: FileAnalysis,
  args: readonly Argument[],
  actionIds: Set<string>,
  actionsById: Map<string, ActionDefinition>,
): DefinitionProblem[] {
  const problems: DefinitionProblem[] = [];
  args.forEach((arg, i) => {
    if (arg.list?.type !== 'Lookup') return;
    const { action: id, actionArguments = {} } = arg.list;
    if (!actionIds.has(id)) {
      const at = file.parsed!.locate(['arguments', i, 'list', 'action']);
      problems.push(problemAt(at, 'LOOKUP_ACTION_MISSING', `argument "${arg.key}" looks up options with action "${id}", which this app version does not have`));
      return;
    }
    const target = actionsById.get(id);
    if (!target) return;
    const keys = (target.arguments ?? []).map((a) => a.key);
    for (const name of Object.keys(actionArguments)) {
      if (keys.includes(name)) continue;
      const at = file.parsed!.locateKey(['arguments', i, 'list', 'actionArguments', name]);
      problems.push(problemAt(at, 'LOOKUP_ARGUMENT_UNKNOWN', `argument "${arg.key}" passes "${name}" to action "${id}", which has no such argument (it has: ${keys.join(', ') || 'none'})`));
    }
    const search = arg.list.searchArgument;
    // The builder's search text is a top-level value the lookup action accepts: a hidden or nested one would be refused.
    const searchable = (target.arguments ?? []).filter((a) => !a.hidden && a.parent === undefined).map((a) => a.key);
    if (search !== undefined && !searchable.includes(search)) {
      const at = file.parsed!.locate(['arguments', i, 'list', 'searchArgument']);
      problems.push(
        problemAt(at, 'LOOKUP_SEARCH_ARGUMENT_UNKNOWN', `argument "${arg.key}" searches with "${search}", which is not a visible top-level argument of action "${id}" (it has: ${searchable.join(', ') || 'none'})`),
      );
    }
  });
  return problems;
}

/** /repos/:owner/:repo needs Param arguments owner and repo (by externalKey or key), and every Param argument a :segment. */
function pathParams(action: FileAnalysis<'action'>): DefinitionProblem[] {
  const def = action.definition!;
  const problems: DefinitionProblem[] = [];
  const inPath = [...def.path.matchAll(PATH_PARAM)].map((m) => m[1]!);
  const params = (def.arguments ?? []).map((arg, i) => ({ arg, i })).filter(({ arg }) => arg.location === 'Param' && arg.parent === undefined);
  const paramNames = new Set(params.map(({ arg }) => arg.externalKey ?? arg.key));
  for (const name of inPath) {
    if (!paramNames.has(name)) {
      problems.push(problemAt(action.parsed!.locate(['path']), 'PATH_PARAM_MISSING', `path ${def.path} has :${name} but no argument with location Param and key or externalKey "${name}"`));
    }
  }
  for (const { arg, i } of params) {
    const name = arg.externalKey ?? arg.key;
    if (!inPath.includes(name)) {
      problems.push(problemAt(action.parsed!.locate(['arguments', i, 'location']), 'PARAM_NOT_IN_PATH', `argument "${arg.key}" is a Param but path ${def.path} has no :${name}`));
    }
  }
  return problems;
}

function placeholders(file: FileAnalysis, [path, text]: [DefinitionPath, string], known: readonly string[]): DefinitionProblem[] {
  const problems: DefinitionProblem[] = [];
  for (const match of text.matchAll(PLACEHOLDER)) {
    const name = match[1]!;
    if (known.includes(name) || HOST_VARIABLE.test(name)) continue;
    problems.push(
      problemAt(file.parsed!.locate(path), 'TEMPLATE_VARIABLE_UNKNOWN', `{{${name}}} names no argument (known: ${known.join(', ') || 'none'}; end-user host variables are metadata.<field>)`),
    );
  }
  return problems;
}

/** Every string of an auth that is a template: URLs, header values, credential fields and exchange body strings. */
function templateStrings(value: unknown, path: (string | number)[]): [DefinitionPath, string][] {
  if (typeof value === 'string') return [[path, value]];
  if (Array.isArray(value)) return value.flatMap((v, i) => templateStrings(v, [...path, i]));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, v]) => (key === 'arguments' || key === 'response' || key === 'description' ? [] : templateStrings(v, [...path, key])));
}

/** The URL templates of an auth: authorizeUrl, tokenUrl, refresh.url, url (not a body or header field that happens to be called url). */
function isUrlPath(path: DefinitionPath): boolean {
  const last = path.at(-1);
  return path[0] !== 'body' && path[0] !== 'headers' && (last === 'authorizeUrl' || last === 'tokenUrl' || last === 'url');
}

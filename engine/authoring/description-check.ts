import type { ActionEntry, AppVersion, ArgumentEntry } from '../core/definitions/snapshot.ts';
import { type DescribedOperation, type DescribedParameter, type ParameterLocation, pathShape } from './openapi-operations.ts';

/** One way an action differs from its provider's description. */
export interface DescriptionMismatch {
  app: string;
  action: string;
  /** What differs, in words, naming the argument or parameter. */
  problem: string;
}

/** Header parameters that carry the credential: the connection's auth sends them. */
const AUTH_HEADERS: ReadonlySet<string> = new Set(['authorization', 'token', 'x-api-key', 'api-key', 'x-auth-token']);

const LOCATIONS: Record<string, ParameterLocation> = { Param: 'path', Query: 'query', Header: 'header', Body: 'body' };

/** The path of the API's baseUrl, placeholders as {name}: https://api.example.com/v1 → /v1. */
function basePath(version: AppVersion): string {
  const url = version.api.baseUrl.replace(/\{\{\s*([\w.]+)\s*\}\}/g, '{$1}');
  const afterOrigin = url.replace(/^[a-z]+:\/\/[^/]*/i, '').replace(/^\{[\w.]+\}/, '');
  return afterOrigin.replace(/\/+$/, '');
}

/** The name an argument is sent under, as the description would list it: `created[gte]` is `created`, `address.line1` is `address`. */
function sentName(arg: ArgumentEntry): string {
  const external = arg.externalKey ?? arg.key;
  if (arg.location === 'Header') return external.toLowerCase();
  return external.split(/[.[]/, 1)[0]!;
}

/**
 * Holds every action of an app version to the provider's described
 * operations: the method and path (with the base URL's path) must be an
 * operation (each `:param` where the description has a path parameter);
 * every top-level argument must be a parameter of its location (a Header
 * argument only when the operation describes headers at all); every
 * parameter the description requires must be given by a required argument
 * or a default; and every Fixed list option must be one of the values the
 * description allows. Returns [] when everything holds.
 */
export function checkAgainstDescription(version: AppVersion, operations: readonly DescribedOperation[], only?: ReadonlySet<string>): DescriptionMismatch[] {
  const mismatches: DescriptionMismatch[] = [];
  const base = basePath(version);
  const byShape = new Map<string, DescribedOperation>();
  for (const op of operations) byShape.set(`${op.method} ${pathShape(op.path)}`, op);
  for (const action of [...version.actions.values()].sort((a, b) => a.id.localeCompare(b.id))) {
    if (only && !only.has(action.id)) continue;
    const say = (problem: string) => mismatches.push({ app: version.app.slug, action: action.id, problem });
    const fullPath = `${base}${action.path.replace(/:(\w+)/g, '{$1}')}`;
    const op = byShape.get(`${action.method} ${pathShape(fullPath)}`);
    if (!op) {
      say(`${action.method} ${action.path} (${action.method} ${fullPath} with the base URL) is not an operation of the description`);
      continue;
    }
    checkOperation(action, op, fullPath, say);
  }
  return mismatches;
}

function checkOperation(action: ActionEntry, op: DescribedOperation, fullPath: string, say: (problem: string) => void): void {
  const where = `${op.method} ${op.documentPath}`;
  const topLevel = action.arguments.filter((arg) => !arg.parent);
  // Path parameters are held by place: the operation was found by the path's shape, so each :param stands where
  // the description has one. Their names are not compared: they never reach the wire (the description's
  // {contact_id} is the action's :contactId), and renaming one is a breaking externalKey change for npm run diff.
  void fullPath;
  const describesHeaders = op.parameters.some((p) => p.location === 'header');
  const find = (location: ParameterLocation, name: string): DescribedParameter | undefined =>
    op.parameters.find((p) => p.location === location && (location === 'header' ? p.name.toLowerCase() === name : p.name === name));
  for (const arg of topLevel) {
    const location = LOCATIONS[arg.location ?? ''];
    if (!location || location === 'path') continue;
    if (location === 'header' && !describesHeaders) continue;
    const name = sentName(arg);
    const described = find(location, name);
    if (!described) {
      const elsewhere = op.parameters.find((p) => p.name === name);
      say(`argument ${arg.key} (${arg.location} ${name}) is not a ${location} parameter of ${where}${elsewhere ? ` (the description has it in the ${elsewhere.location})` : ''}`);
      continue;
    }
    checkOptions(arg, described, where, say);
  }
  // Children of an Object argument: their first dotted part below the parent is a field of the parent's schema only when described; not checked here.
  for (const p of op.parameters) {
    if (!p.required || p.location === 'path') continue;
    // The credential (Slack describes its token as a required header): the auth sends it, not an argument.
    if (p.location === 'header' && AUTH_HEADERS.has(p.name.toLowerCase())) continue;
    const given = topLevel.some((arg) => LOCATIONS[arg.location ?? ''] === p.location && sentName(arg) === (p.location === 'header' ? p.name.toLowerCase() : p.name) && (arg.required || arg.default !== undefined || arg.asBody));
    if (!given && !(p.location === 'header' && !describesHeaders)) say(`the description requires ${p.location} parameter ${p.name} of ${where}; no required argument (or default) sends it`);
  }
}

function checkOptions(arg: ArgumentEntry, described: DescribedParameter, where: string, say: (problem: string) => void): void {
  if (arg.list?.type !== 'Fixed' || !described.values) return;
  for (const option of arg.list.options) {
    const value = String(option.value);
    // A mapper may turn an option into what is sent (several values joined, say): then the option is not what the description lists.
    if (!described.values.includes(value) && !arg.mapper && !arg.multipleValues) say(`argument ${arg.key} offers "${value}", which ${where} does not allow (${described.values.map((v) => `"${v}"`).join(', ')})`);
  }
}

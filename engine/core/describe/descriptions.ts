import type { ListSettings } from '../definitions/generated/definition-types.ts';
import type { ActionEntry, AppEntry, AppVersion, ArgumentEntry } from '../definitions/snapshot.ts';
import { CURSOR_ARGUMENT, takesCursorArgument } from '../arguments/index.ts';

/** GET /v2/universal/apps: one app and what versions it has. */
export interface AppDescription {
  id: string;
  slug: string;
  name: string;
  description: string | null;
  website: string | null;
  /** The numbered version `published` resolves to; null while the app has only a draft. */
  published: number | null;
  versions: number[];
  draft: boolean;
}

export interface ActionSummary {
  id: string;
  slug: string;
  name: string;
  description: string | null;
  operation: ActionEntry['operation'];
  method: ActionEntry['method'];
  path: string;
  /** When the action pages (its own pagination or the API's): the caller sends meta.cursor back as this argument. */
  cursorArgument: string | null;
}

/** Every property of an argument as written, with the absent ones null, so a builder never guesses a default. */
export interface ArgumentDescription {
  key: string;
  externalKey: string | null;
  label: string;
  description: string | null;
  dataType: ArgumentEntry['dataType'];
  /** As written; children take their parent's, shown in placedIn. */
  location: ArgumentEntry['location'] | null;
  placedIn: NonNullable<ArgumentEntry['location']> | null;
  parent: string | null;
  required: boolean;
  hidden: boolean;
  default: unknown;
  /** The JSONata source of the mapper. */
  mapper: string | null;
  escape: ArgumentEntry['escape'] | null;
  /** The value rules a caller's value is held to (each value, with multipleValues); integer is false when absent. */
  integer: boolean;
  minimum: number | null;
  maximum: number | null;
  minLength: number | null;
  maxLength: number | null;
  pattern: string | null;
  component: string | null;
  multipleValues: ArgumentEntry['multipleValues'] | null;
  /** How its arrays are written in a form body (a top-level Body argument of a Form API), instead of the API's. */
  arrayStyle: ArgumentEntry['arrayStyle'] | null;
  /** On a String the form its value must have (email, uri, date-time); on a Date how it is sent. */
  format: ArgumentEntry['format'] | null;
  list: (ListSettings & { optionsPath: string }) | null;
}

export function describeApp(app: AppEntry): AppDescription {
  return {
    id: app.id,
    slug: app.slug,
    name: app.name,
    description: app.definition.description ?? null,
    website: app.definition.website ?? null,
    published: app.published ?? null,
    versions: [...app.versions.keys()],
    draft: app.draft !== undefined,
  };
}

export function summarizeAction(action: ActionEntry, _version: AppVersion): ActionSummary {
  return {
    id: action.id,
    slug: action.slug,
    name: action.name,
    description: action.description ?? null,
    operation: action.operation,
    method: action.method,
    path: action.path,
    cursorArgument: takesCursorArgument(action) ? CURSOR_ARGUMENT : null,
  };
}

/**
 * GET .../actions/{actionSlug}: the action and every argument, hidden ones
 * included and marked, in definition order (children name their parent).
 * `versionQuery` is appended to options paths so they ask the same version.
 */
export function describeAction(action: ActionEntry, version: AppVersion, versionQuery: string): ActionSummary & { arguments: ArgumentDescription[] } {
  const base = `/v2/universal/apps/${version.app.slug}/actions/${action.slug}/arguments`;
  return {
    ...summarizeAction(action, version),
    arguments: action.arguments.map((arg) => describeArgument(arg, action.arguments, `${base}/${arg.key}/options${versionQuery}`)),
  };
}

export function describeArgument(arg: ArgumentEntry, all: readonly ArgumentEntry[], optionsPath: string): ArgumentDescription {
  return {
    key: arg.key,
    externalKey: arg.externalKey ?? null,
    label: arg.label ?? arg.key,
    description: arg.description ?? null,
    dataType: arg.dataType,
    location: arg.location ?? null,
    placedIn: placedIn(arg, all),
    parent: arg.parent ?? null,
    required: arg.required ?? false,
    hidden: arg.hidden ?? false,
    default: arg.default ?? null,
    mapper: arg.mapper?.source ?? null,
    escape: arg.escape ?? null,
    integer: arg.integer ?? false,
    minimum: arg.minimum ?? null,
    maximum: arg.maximum ?? null,
    minLength: arg.minLength ?? null,
    maxLength: arg.maxLength ?? null,
    pattern: arg.pattern ?? null,
    component: arg.component ?? null,
    multipleValues: arg.multipleValues ?? null,
    arrayStyle: arg.arrayStyle ?? null,
    format: arg.format ?? null,
    list: arg.list ? { ...arg.list, optionsPath } : null,
  };
}

/** Children go where their top-level ancestor goes. */
function placedIn(arg: ArgumentEntry, all: readonly ArgumentEntry[]): NonNullable<ArgumentEntry['location']> | null {
  let at: ArgumentEntry | undefined = arg;
  for (let depth = 0; at && depth <= all.length; depth++) {
    if (at.parent === undefined) return at.location ?? null;
    const parentKey: string = at.parent;
    at = all.find((a) => a.key === parentKey);
  }
  return null;
}

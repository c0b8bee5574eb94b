import type { Skipped } from './imported-app.ts';
import { arr, entries, isObj, isRef, obj, str, type Obj } from './json-access.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** One operation of a description, with what its path item adds to it. */
export interface OperationInfo {
  method: HttpMethod;
  /** As the description writes it: `/repos/{owner}/{repo}/issues`. */
  path: string;
  operation: Obj;
  pathItem: Obj;
  operationId: string | undefined;
  /** The path item's parameters with the operation's own, which win on the same name and location. */
  parameters: Obj[];
  /** The parameters it lists that say no name or no place (`in`), which OpenAPI requires of each: how the report names them. */
  unreadableParameters: string[];
  tags: string[];
  /** `GET /repos/{owner}/{repo}/issues (issues/list-for-repo)`: how reports name it. */
  label: string;
}

const METHODS: Record<string, HttpMethod> = { get: 'GET', post: 'POST', put: 'PUT', patch: 'PATCH', delete: 'DELETE' };
const OTHER_METHODS = ['head', 'options', 'trace', 'query'];

/**
 * Every operation of the description's paths, in its order, and what cannot
 * be an action at all: HEAD, OPTIONS and TRACE operations (an action's
 * method is GET, POST, PUT, PATCH or DELETE), and the description's webhooks
 * (requests the provider sends, not calls to it).
 */
export function operationsOf(document: Obj): { operations: OperationInfo[]; skipped: Skipped[] } {
  const operations: OperationInfo[] = [];
  const skipped: Skipped[] = [];
  for (const [path, rawItem] of entries(document.paths)) {
    const pathItem = obj(rawItem);
    if (!pathItem) continue;
    for (const [key, value] of Object.entries(pathItem)) {
      const method = METHODS[key.toLowerCase()];
      const operation = obj(value);
      if (!operation) continue;
      const operationId = str(operation.operationId)?.trim() || undefined;
      const label = `${key.toUpperCase()} ${path}${operationId ? ` (${operationId})` : ''}`;
      if (!method) {
        if (OTHER_METHODS.includes(key.toLowerCase())) skipped.push({ what: label, reason: `an action's method is GET, POST, PUT, PATCH or DELETE, not ${key.toUpperCase()}` });
        continue;
      }
      operations.push({ method, path, operation, pathItem, operationId, ...parametersOf(pathItem, operation), tags: arr(operation.tags).filter((t): t is string => typeof t === 'string'), label });
    }
  }
  for (const [name] of entries(document.webhooks)) {
    skipped.push({ what: `webhook ${name}`, reason: 'a webhook is a request the provider sends, not a call to it: no action can make it' });
  }
  return { operations, skipped };
}

/** The operation's parameters (its own win over its path item's on the same name and place), and those it cannot read. */
function parametersOf(pathItem: Obj, operation: Obj): { parameters: Obj[]; unreadableParameters: string[] } {
  const byPlace = new Map<string, Obj>();
  const unreadableParameters: string[] = [];
  for (const [holder, list] of [['path item', pathItem.parameters], ['operation', operation.parameters]] as const) {
    arr(list).forEach((raw, index) => {
      const parameter = obj(raw);
      // A circular reference cannot be a parameter (the reading of $refs says so).
      // A name "" is a name: arguments-from-parameters.ts says what becomes of it.
      if (!parameter || isRef(parameter)) return;
      const name = str(parameter.name);
      const place = str(parameter.in);
      if (name === undefined || !place) {
        const lacks = [name === undefined ? 'name' : null, place ? null : 'in'].filter(Boolean).join(' and ');
        unreadableParameters.push(`the ${holder}'s parameter ${index + 1}${name ? ` (${JSON.stringify(name)})` : ''}${place ? ` (in ${place})` : ''} has no ${lacks}`);
        return;
      }
      byPlace.set(`${place}:${name}`, parameter);
    });
  }
  return { parameters: [...byPlace.values()], unreadableParameters };
}

/** The first 2xx response of an operation (2XX and default when there is none), with its status. */
export function successResponse(operation: Obj): { status: number; response: Obj } | undefined {
  const responses = entries(operation.responses).filter(([, r]) => isObj(r));
  const exact = responses.filter(([code]) => /^2\d\d$/.test(code)).sort(([a], [b]) => Number(a) - Number(b));
  if (exact.length) return { status: Number(exact[0]![0]), response: exact[0]![1] as Obj };
  const range = responses.find(([code]) => code.toUpperCase() === '2XX') ?? responses.find(([code]) => code === 'default');
  return range ? { status: 200, response: range[1] as Obj } : undefined;
}

/** An error response the description documents (the first 4xx, else 5xx), with its status. */
export function errorResponse(operation: Obj): { status: number; response: Obj } | undefined {
  const responses = entries(operation.responses).filter(([code, r]) => isObj(r) && /^[45]\d\d$/.test(code));
  responses.sort(([a], [b]) => Number(a) - Number(b));
  const first = responses.find(([code]) => code !== '429') ?? responses[0];
  return first ? { status: Number(first[0]), response: first[1] as Obj } : undefined;
}

/** The JSON media of a response or body: its media type and the entry (schema, example, examples). */
export function jsonMedia(holder: Obj | undefined): { type: string; media: Obj } | undefined {
  for (const [type, media] of entries(holder?.content)) {
    if (isJsonMediaType(type) && isObj(media)) return { type, media };
  }
  return undefined;
}

export function isJsonMediaType(type: string): boolean {
  const base = type.split(';')[0]!.trim().toLowerCase();
  return base === 'application/json' || base === 'text/json' || base === '*/*' || /^[a-z]+\/[^\s/]+\+json$/.test(base);
}

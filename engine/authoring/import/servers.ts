import { ImportError } from './import-error.ts';
import type { ListOption } from '../../core/definitions/generated/definition-types.ts';
import type { Argument } from './imported-app.ts';
import { arr, entries, obj, str, type Obj } from './json-access.ts';
import { camelKey, documentation } from './naming.ts';
import type { OperationInfo } from './operations.ts';

/** Where the app's requests go: `api.yaml`'s baseUrl and the API arguments its placeholders name. */
export interface BaseUrl {
  baseUrl: string;
  arguments: Argument[];
  /** The base URL with every placeholder at its default: where an offline case's requests go. */
  example: string;
}

/**
 * The base URL from the description's first server (or `override`). A
 * server variable that stands for whole labels in front of a fixed domain
 * (`https://{subdomain}.zendesk.com`) or for a path segment becomes an API
 * argument (its default, its enum as a Fixed list) filled per connection;
 * one anywhere else (a scheme, a port, a whole host) is fixed to its default,
 * which `note` says. A relative server URL needs `override`.
 */
export function baseUrlOf(document: Obj, file: string, note: (message: string) => void, override?: string): BaseUrl {
  const server = obj(arr(document.servers)[0]);
  const template = override ?? str(server?.url) ?? '';
  const variables = override ? {} : (obj(server?.variables) ?? {});
  if (!override && !template) throw new ImportError(`${file} names no server: give the API's base URL with --base-url https://...`);
  const args: Argument[] = [];
  const fixed = (name: string, value: string, why: string) => {
    note(`server variable {${name}} fixed to its default "${value}": ${why}`);
    return value;
  };
  const defaults = new Map<string, string>();
  const filled = template.replace(/\{([^{}]+)\}/g, (whole, name: string, offset: number) => {
    const variable = obj(variables[name]);
    const value = str(variable?.default) ?? (variable ? String(variable.default ?? '') : '');
    defaults.set(name, value);
    if (!variable) throw new ImportError(`${file}: the server URL ${template} names {${name}}, which is not among its variables`);
    const before = template.slice(0, offset);
    const after = template.slice(offset + whole.length);
    const inHost = /^[a-z][a-z0-9+.-]*:\/\/[^/]*$/i.test(before);
    const label = inHost && /(^|[./])$/.test(before) && /^\.[a-z0-9-]+\.[a-z0-9-]+/i.test(after) && !/\{/.test(after.split('/')[0]!);
    const segment = !inHost && /\/$/.test(before) && /^(\/|$)/.test(after) && /:\/\//.test(before);
    if (!label && !segment) return fixed(name, value, inHost ? 'it stands for more than whole labels of the host' : 'it is not a whole host label or path segment');
    const key = camelKey(name);
    if (!args.some((a) => a.key === key)) args.push(serverArgument(key, name, variable, value));
    return `{{${key}}}`;
  });
  const example = template.replace(/\{([^{}]+)\}/g, (_whole, name: string) => defaults.get(name) ?? '');
  if (!/^https?:\/\//.test(filled)) {
    throw new ImportError(`${file}: the server URL ${JSON.stringify(template)} is not an absolute http(s) URL: give the API's base URL with --base-url https://...`);
  }
  if (/[?#]/.test(filled)) throw new ImportError(`${file}: the server URL ${template} has a query or fragment; a base URL has neither`);
  return { baseUrl: filled.replace(/\/+$/, ''), arguments: args, example: example.replace(/\/+$/, '') };
}

function serverArgument(key: string, name: string, variable: Obj, value: string): Argument {
  const arg: Argument = { key, dataType: 'String' };
  const text = documentation(str(variable.description) ?? `The server's {${name}}.`);
  if (text) arg.description = text;
  const options = arr(variable.enum).filter((v): v is string => typeof v === 'string');
  if (options.length) {
    arg.dataType = 'List';
    arg.list = { type: 'Fixed', options: options.map((v) => ({ value: v })) as [ListOption, ...ListOption[]] };
    if (options.includes(value)) arg.default = value;
  } else if (value) arg.default = value;
  return arg;
}

/**
 * Where an operation is served relative to the base URL: its own `servers`
 * (or its path item's) may add a path prefix (`/2010-04-01`), kept in the
 * action's path; one on another origin cannot be an action of this app.
 */
export function operationPrefix(op: OperationInfo, base: BaseUrl): { prefix: string } | { skip: string } {
  const servers = arr(op.operation.servers).length ? op.operation.servers : op.pathItem.servers;
  const first = obj(arr(servers)[0]);
  const url = str(first?.url);
  if (!url) return { prefix: '' };
  const concrete = url.replace(/\{([^{}]+)\}/g, (_whole, name: string) => str(obj(obj(first?.variables)?.[name])?.default) ?? '').replace(/\/+$/, '');
  if (concrete === base.example || concrete === '') return { prefix: '' };
  if (concrete.startsWith(`${base.example}/`)) return { prefix: concrete.slice(base.example.length) };
  if (concrete.startsWith('/')) return { prefix: concrete };
  return { skip: `it is served from ${url}, not the API's base URL ${base.example}` };
}

export function serverVariableNames(document: Obj): string[] {
  return entries(obj(arr(document.servers)[0])?.variables).map(([name]) => name);
}

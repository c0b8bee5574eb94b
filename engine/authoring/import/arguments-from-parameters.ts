import { argumentsFrom, type ArgumentScope } from './argument-from-schema.ts';
import type { Argument } from './imported-app.ts';
import { isObj, obj, str, type Obj } from './json-access.ts';
import { camelKey, unique } from './naming.ts';
import { jsonMedia, type OperationInfo } from './operations.ts';
import { objectShape, typeOf } from './schema-shape.ts';

/** Headers the gateway sets itself or that carry credentials (docs/arguments.md, "Header arguments"), lower-case; an auth's own header is added per app. */
const RESERVED_HEADERS = new Set(['host', 'connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'content-length', 'content-type', 'authorization', 'proxy-authorization', 'cookie', 'accept']);
/** Parameter names that carry the caller's credential when the API has an auth: the auth sends it. */
const CREDENTIAL_NAMES = new Set(['token', 'access_token', 'api_key', 'apikey']);
/** A `:name` of an action path. */
const PATH_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export interface ParameterArguments {
  /** The action path with `:name` segments. */
  path: string;
  arguments: Argument[];
}

/**
 * The action path and the arguments of an operation's parameters: path
 * parameters as Param (a `{name}` the `:name` syntax cannot hold is renamed
 * to its key), query as Query, headers as Header. A query object with
 * `deepObject` or exploded `form` style becomes one argument per property
 * (`filter[status]`); a multiple-values parameter joins its values as its
 * style says. Headers the gateway or an auth sets, and the credential
 * parameters an auth sends, are dropped with a note; a cookie parameter, and
 * a query or header parameter named "" (no argument can send one), is
 * dropped, or skips the operation when it is required. A parameter without
 * a name or an `in` is dropped with a note.
 */
export function parameterArguments(op: OperationInfo, prefix: string, scope: ArgumentScope, credentials: { headers: Set<string>; query: Set<string> }): ParameterArguments | { skip: string } {
  const args: Argument[] = [];
  const byPath = new Map(op.parameters.filter((p) => p.in === 'path').map((p) => [str(p.name)!, p]));
  if (/:[A-Za-z_]/.test(op.path) || /:[A-Za-z_]/.test(prefix)) return { skip: `its path ${op.path} has a literal ":" before a letter, which an action path would read as a parameter` };
  let unsupported: string | undefined;
  const path = encodeLiteral(prefix + op.path).replace(/\{([^{}]+)\}/g, (_whole, name: string, offset: number, whole: string) => {
    const parameter = byPath.get(name) ?? { name, in: 'path', required: true, schema: { type: 'string' } };
    if (!byPath.has(name)) scope.note(`path parameter {${name}} is not declared; taken as a required String`);
    byPath.delete(name);
    const next = whole[offset + name.length + 2];
    if (next !== undefined && /[A-Za-z0-9_]/.test(next)) unsupported = `its path parameter {${name}} is followed by "${next}", which an action path would read as part of its name`;
    const fitting = PATH_NAME.test(name);
    const key = fitting ? undefined : unique(camelKey(name), scope.taken);
    const made = parameterArgument(parameter, scope, fitting ? {} : { key: key!, externalKey: key! });
    args.push(...made);
    return `:${fitting ? name : made[0]?.key ?? key}`;
  });
  if (unsupported) return { skip: unsupported };
  // OpenAPI requires each parameter's name and in: one without is not guessed at, and not dropped without a word.
  for (const unreadable of op.unreadableParameters) scope.note(`${unreadable}, which OpenAPI requires of every parameter: dropped, as no argument can be made of it`);
  for (const parameter of op.parameters) {
    const name = str(parameter.name)!;
    const place = parameter.in;
    if (place === 'path') continue;
    const lower = name.toLowerCase();
    if (place === 'cookie') {
      if (parameter.required === true) return { skip: `it needs the cookie ${name}, which an action cannot send` };
      scope.note(`cookie parameter ${name} dropped: an action cannot send cookies`);
      continue;
    }
    if ((place === 'query' || place === 'header') && name === '') {
      // Sent under its name (`?=x`), or a header that is its name: an argument's externalKey may not be empty (argument.schema.json).
      const how = place === 'query' ? 'a query parameter is sent under its name' : 'a header is its name';
      if (parameter.required === true) return { skip: `it requires the ${place} parameter named "" (the empty string), which no argument can send: ${how}, and an argument's externalKey may not be empty` };
      scope.note(`${place} parameter named "" (the empty string) dropped: ${place === 'query' ? 'it is sent under its name' : how}, and an argument's externalKey may not be empty`);
      continue;
    }
    if (place === 'header' && (RESERVED_HEADERS.has(lower) || credentials.headers.has(lower))) {
      scope.note(`header ${name} dropped: ${credentials.headers.has(lower) || lower === 'authorization' ? 'the auth sends it' : 'the gateway sets it'}`);
      continue;
    }
    if (place === 'query' && credentials.query.has(name)) {
      scope.note(`query parameter ${name} dropped: the auth sends it`);
      continue;
    }
    if ((place === 'header' || place === 'query') && CREDENTIAL_NAMES.has(lower) && (credentials.headers.size || credentials.query.size)) {
      scope.note(`${place} parameter ${name} dropped: it carries the credential, which the auth sends`);
      continue;
    }
    if (place !== 'query' && place !== 'header') continue;
    args.push(...parameterArgument(parameter, scope, {}));
  }
  return { path, arguments: args };
}

/**
 * The path's literal text as the engine sends it (a URL's path): a space, a
 * letter beyond ASCII or a quote percent-encoded (`/a b` is `/a%20b`, `ü` is
 * `%C3%BC`), what a path may hold as it is kept (an escape already there,
 * `%20`, included), and the `{name}` templates left for the caller to fill.
 */
function encodeLiteral(path: string): string {
  return path.replace(/[^A-Za-z0-9\-._~!$&'()*+,;=:@/%{}]/gu, (character) => {
    try {
      return encodeURIComponent(character);
    } catch {
      return '%EF%BF%BD'; // a lone surrogate: U+FFFD, as a URL writes it
    }
  });
}

function parameterArgument(parameter: Obj, scope: ArgumentScope, naming: { key?: string; externalKey?: string }): Argument[] {
  const name = str(parameter.name)!;
  const place = parameter.in as 'path' | 'query' | 'header';
  const location = place === 'path' ? 'Param' : place === 'query' ? 'Query' : 'Header';
  const schema = parameter.schema ?? jsonMedia(obj(parameter))?.media.schema ?? { type: 'string' };
  const type = typeOf(schema);
  const style = str(parameter.style) ?? (place === 'query' ? 'form' : 'simple');
  const explode = typeof parameter.explode === 'boolean' ? parameter.explode : style === 'form';
  const description = str(parameter.description);
  const required = place === 'path' || parameter.required === true;

  if (type === 'object' && place === 'query' && (style === 'deepObject' || (style === 'form' && explode))) {
    const { properties, required: inner } = objectShape(schema);
    if (properties.length) {
      return properties.flatMap(([property, propertySchema]) => {
        const external = style === 'deepObject' ? `${name}[${property}]` : property;
        return argumentsFrom({ name: external, key: unique(camelKey(style === 'deepObject' ? `${name}_${property}` : property), scope.taken), externalKey: external, schema: propertySchema, required: required && inner.has(property), location }, scope);
      });
    }
  }
  if ((type === 'object' || (type === 'array' && !isScalarArray(schema))) && place !== 'query') {
    scope.note(`${place} parameter ${name} dropped: an object cannot go in a ${place === 'path' ? 'path segment' : 'header'}`);
    return place === 'path' ? argumentsFrom({ name, schema: { type: 'string' }, required, description, location, ...naming }, scope) : [];
  }
  const delimiter = style === 'spaceDelimited' ? ' ' : style === 'pipeDelimited' ? '|' : place === 'query' && explode ? undefined : ',';
  return argumentsFrom({ name, schema, required, description, location, delimiter, ...naming, key: naming.key ?? unique(camelKey(name), scope.taken) }, scope);
}

function isScalarArray(schema: unknown): boolean {
  const items = isObj(schema) ? schema.items : undefined;
  const type = typeOf(items);
  return type !== 'object' && type !== 'array';
}


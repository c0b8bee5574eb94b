/**
 * A provider's published API description (OpenAPI 3.x or Swagger 2.0), read
 * into the few facts an action can be held to: per operation, its method,
 * full path, and its parameters by location (path, query, header, body
 * fields) with whether each is required and the values its enum allows.
 * `$ref`s inside the document are followed (at most REF_DEPTH deep).
 */

export type ParameterLocation = 'path' | 'query' | 'header' | 'body';

export interface DescribedParameter {
  name: string;
  location: ParameterLocation;
  required: boolean;
  /** The values the description allows, when it lists them (an enum). */
  values?: string[];
}

export interface DescribedOperation {
  method: string;
  /** The whole path, the servers' (or basePath's) path included, with {param} segments: /api/chat.postMessage. */
  path: string;
  /** The path as the description writes it, for messages and trimming. */
  documentPath: string;
  parameters: DescribedParameter[];
}

type Node = Record<string, any>;
const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
const REF_DEPTH = 20;

/** A local $ref's JSON pointer as keys: `#/a/application~1json` is a, application/json (RFC 6901: ~1 is /, ~0 is ~). */
function pointerSegments(ref: string): string[] {
  return ref
    .slice(2)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** Follows a local $ref (#/components/schemas/X) until a node without one. */
function deref(doc: Node, node: any, depth = 0): any {
  if (!node || typeof node !== 'object' || typeof node.$ref !== 'string') return node;
  if (depth > REF_DEPTH) throw new Error(`$ref chain deeper than ${REF_DEPTH} at ${node.$ref}`);
  if (!node.$ref.startsWith('#/')) throw new Error(`only local $refs are read, not ${node.$ref}`);
  const target = pointerSegments(node.$ref).reduce((at: any, key: string) => (at === undefined ? undefined : at[key]), doc);
  if (target === undefined) throw new Error(`$ref ${node.$ref} points at nothing`);
  return deref(doc, target, depth + 1);
}

/** The path part of the description's base: servers[0].url (3.x) or basePath (2.0), without a trailing slash. */
export function basePathOf(doc: Node): string {
  let base = '';
  if (typeof doc.basePath === 'string') base = doc.basePath;
  else if (Array.isArray(doc.servers) && typeof doc.servers[0]?.url === 'string') {
    const url = doc.servers[0].url as string;
    base = /^[a-z]+:\/\//i.test(url) ? new URL(url.replace(/\{[^}]+\}/g, 'x')).pathname : url;
  }
  return base.replace(/\/+$/, '');
}

const enumOf = (schema: any): string[] | undefined => (Array.isArray(schema?.enum) ? schema.enum.map(String) : undefined);

/** The fields of a body schema (allOf merged, the first of oneOf/anyOf), with required and enums. */
function bodyFields(doc: Node, schema: any, required: boolean, depth = 0): DescribedParameter[] {
  const s = deref(doc, schema);
  if (!s || typeof s !== 'object' || depth > REF_DEPTH) return [];
  const parts = [...(s.allOf ?? []), ...(s.oneOf ? [s.oneOf[0]] : []), ...(s.anyOf ? [s.anyOf[0]] : [])];
  const own = Object.entries((s.properties ?? {}) as Record<string, any>).map(([name, prop]) => {
    const p = deref(doc, prop);
    const values = enumOf(p) ?? enumOf(deref(doc, p?.items));
    return { name, location: 'body' as const, required: required && Array.isArray(s.required) && s.required.includes(name), ...(values ? { values } : {}) };
  });
  return [...own, ...parts.flatMap((part: any) => bodyFields(doc, part, required, depth + 1))];
}

/** Every operation of the description. */
export function describedOperations(doc: Node): DescribedOperation[] {
  const base = basePathOf(doc);
  const out: DescribedOperation[] = [];
  for (const [documentPath, rawItem] of Object.entries((doc.paths ?? {}) as Record<string, any>)) {
    const item = deref(doc, rawItem);
    for (const method of METHODS) {
      const op = item?.[method];
      if (!op) continue;
      const parameters: DescribedParameter[] = [];
      for (const raw of [...(item.parameters ?? []), ...(op.parameters ?? [])]) {
        const p = deref(doc, raw);
        if (p.in === 'body') {
          parameters.push(...bodyFields(doc, p.schema, p.required === true));
          continue;
        }
        const location: ParameterLocation | undefined = p.in === 'formData' ? 'body' : p.in === 'path' || p.in === 'query' || p.in === 'header' ? p.in : undefined;
        if (!location) continue;
        const values = enumOf(p.schema ?? p) ?? enumOf(deref(doc, (p.schema ?? p).items));
        // An operation-level parameter replaces a path-level one of the same name and place.
        const at = parameters.findIndex((q) => q.name === p.name && q.location === location);
        const entry = { name: p.name, location, required: p.required === true || location === 'path', ...(values ? { values } : {}) };
        if (at >= 0) parameters[at] = entry;
        else parameters.push(entry);
      }
      const body = deref(doc, op.requestBody);
      if (body?.content) {
        const media = body.content['application/json'] ?? body.content['application/x-www-form-urlencoded'] ?? Object.values(body.content)[0];
        parameters.push(...bodyFields(doc, (media as any)?.schema, body.required === true));
      }
      out.push({ method: method.toUpperCase(), path: `${base}${documentPath}`, documentPath, parameters });
    }
  }
  return out;
}

/** A path's shape, every {param} one wildcard: /repos/{}/{}/issues. */
export const pathShape = (path: string) => path.replace(/\{[^}]+\}/g, '{}').replace(/\/+$/, '');

/**
 * The description cut down to the operations named (method and document
 * path), with what they reference: what a fixture keeps. Everything else of
 * the document (info, servers, basePath, components) stays as it was, so the
 * trimmed copy reads as the original does.
 */
export function trimDescription(doc: Node, keep: { method: string; documentPath: string }[]): Node {
  const paths: Node = {};
  for (const { method, documentPath } of keep) {
    const item = doc.paths?.[documentPath];
    if (!item?.[method.toLowerCase()]) throw new Error(`${method} ${documentPath} is not in the description`);
    paths[documentPath] ??= Object.fromEntries(Object.entries(item).filter(([key]) => !(METHODS as readonly string[]).includes(key)));
    paths[documentPath][method.toLowerCase()] = item[method.toLowerCase()];
  }
  // Keep only the components (definitions, parameters) reachable from the kept operations.
  const reachable = new Set<string>();
  const walk = (node: any): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (!node || typeof node !== 'object') return;
    if (typeof node.$ref === 'string' && node.$ref.startsWith('#/') && !reachable.has(node.$ref)) {
      reachable.add(node.$ref);
      walk(deref(doc, { $ref: node.$ref }));
    }
    for (const [key, value] of Object.entries(node)) if (key !== 'examples' && key !== 'example') walk(value);
  };
  walk(paths);
  const trimmed: Node = { ...doc, paths };
  for (const section of ['components', 'definitions', 'parameters', 'responses']) {
    if (!doc[section]) continue;
    const keepRefs = [...reachable].filter((ref) => ref.startsWith(`#/${section}/`)).map(pointerSegments);
    const copy: Node = {};
    for (const segments of keepRefs) {
      let from: any = doc;
      let to: any = { [section]: copy };
      for (const [i, key] of segments.entries()) {
        from = from[key];
        if (i === segments.length - 1) to[key] = from;
        else to = to[key] ??= {};
      }
    }
    trimmed[section] = copy;
  }
  delete trimmed['x-webhooks'];
  delete trimmed.webhooks;
  return trimmed;
}

import { arr, entries, isObj, obj, type Obj } from './json-access.ts';
import { jsonMedia, successResponse } from './operations.ts';
import { objectShape, typeOf } from './schema-shape.ts';

/**
 * Where an operation's data is in its success response: the whole body (an
 * array, or the resource itself), or one field of a wrapper object: the
 * listed array (`{ "droplets": [...], "links": ..., "meta": ... }`) or the
 * one object (`{ "droplet": {...} }`, `{ "data": {...} }`).
 */
export interface ResponsePlan {
  status: number;
  /** The success body's schema, when the description gives one (JSON only). */
  schema: Obj | undefined;
  /** The example body the description gives, if any. */
  example: unknown;
  /** Whether the success response has a JSON body at all. */
  json: boolean;
  data: { from: 'body' } | { from: 'field'; field: string } | { from: 'nothing' };
  /** Whether the data is a listing (an array, whole or in a field). */
  listed: boolean;
  /** A boolean body field that says whether the call succeeded (Slack's `ok`). */
  okField: string | undefined;
  /** Response headers the description names, lower-case. */
  headers: string[];
}

/**
 * Fields of a wrapper that are about the page or the call, not the data:
 * a wrapper whose other fields are all such holds its listing in its one
 * array field.
 */
const ENVELOPE_FIELDS = new Set(
  [
    'ok', 'success', 'status', 'object', 'kind', 'type', 'url', 'uri', 'etag', 'warning', 'warnings', 'messages', 'request_id', 'requestid',
    'has_more', 'hasmore', 'more', 'is_last', 'islast', 'next', 'previous', 'prev', 'next_cursor', 'nextcursor', 'next_page', 'nextpage',
    'next_page_token', 'nextpagetoken', 'next_token', 'nexttoken', 'cursor', 'cursors', 'continuation', 'marker', 'next_marker', 'nextmarker',
    'count', 'total', 'total_count', 'totalcount', 'total_size', 'totalsize', 'total_pages', 'totalpages', 'total_results', 'totalresults', 'num_pages',
    'page', 'pages', 'per_page', 'perpage', 'page_size', 'pagesize', 'limit', 'offset', 'start', 'end', 'first_page_uri', 'next_page_uri',
    'previous_page_uri', 'last_page_uri', 'meta', 'metadata', 'links', '_links', 'paging', 'pagination', 'page_info', 'pageinfo',
    'response_metadata', '@odata.context', '@odata.nextlink', '@odata.count', 'nextlink', 'next_link', 'next_url', 'nexturl', 'cache_ts',
  ],
);

export function responsePlan(op: { operation: Obj }, verbSaysList: boolean): ResponsePlan {
  const success = successResponse(op.operation);
  const media = jsonMedia(success?.response);
  const headers = entries(success?.response.headers).map(([name]) => name.toLowerCase());
  const plan: ResponsePlan = { status: success?.status ?? 200, schema: undefined, example: undefined, json: false, data: { from: 'nothing' }, listed: false, okField: undefined, headers };
  if (!media) return plan;
  plan.json = true;
  plan.schema = obj(media.media.schema);
  plan.example = exampleOf(media.media);
  const shape = plan.schema && Object.keys(plan.schema).length ? fromSchema(plan.schema) : fromExample(plan.example);
  if (!shape) {
    plan.data = { from: 'body' };
    return plan;
  }
  if (shape.kind === 'array') {
    plan.data = { from: 'body' };
    plan.listed = true;
    return plan;
  }
  plan.okField = shape.fields.find((f) => f.name === 'ok' && f.type === 'boolean')?.name;
  const arrays = shape.fields.filter((f) => f.type === 'array');
  const others = shape.fields.filter((f) => f.type !== 'array' && !ENVELOPE_FIELDS.has(f.name.toLowerCase()));
  const listing = arrays.length === 1 && (others.length === 0 || verbSaysList) ? arrays[0] : arrays.length > 1 && others.length === 0 ? preferred(arrays) : undefined;
  if (listing && readable(listing.name)) {
    plan.data = { from: 'field', field: listing.name };
    plan.listed = true;
    return plan;
  }
  const inner = shape.fields.filter((f) => !ENVELOPE_FIELDS.has(f.name.toLowerCase()) || f.name === 'data');
  if (inner.length === 1 && inner[0]!.type === 'object' && readable(inner[0]!.name) && shape.fields.every((f) => f === inner[0] || ENVELOPE_FIELDS.has(f.name.toLowerCase()))) {
    plan.data = { from: 'field', field: inner[0]!.name };
    return plan;
  }
  plan.data = { from: 'body' };
  return plan;
}

type Shape = { kind: 'array' } | { kind: 'object'; fields: { name: string; type: string | undefined }[] } | undefined;

function fromSchema(schema: Obj): Shape {
  const type = typeOf(schema);
  if (type === 'array') return { kind: 'array' };
  if (type !== 'object') return undefined;
  return { kind: 'object', fields: objectShape(schema).properties.map(([name, property]) => ({ name, type: typeOf(property) })) };
}

function fromExample(example: unknown): Shape {
  if (Array.isArray(example)) return { kind: 'array' };
  if (!isObj(example)) return undefined;
  return { kind: 'object', fields: Object.entries(example).map(([name, value]) => ({ name, type: Array.isArray(value) ? 'array' : isObj(value) ? 'object' : typeof value })) };
}

/** Of several array fields of a wrapper, the one conventionally holding the listing. */
function preferred(arrays: { name: string }[]): { name: string } | undefined {
  for (const name of ['data', 'items', 'results', 'records', 'entries', 'values', 'value', 'elements', 'objects', 'list', 'nodes']) {
    const found = arrays.find((a) => a.name === name);
    if (found) return found;
  }
  return undefined;
}

/** A field name a JSONata path can name (in backticks when it is not a plain name). */
function readable(name: string): boolean {
  return name !== '' && !name.includes('`');
}

/** A JSONata path step for a field: `droplets`, or `` `@odata.nextLink` ``. */
export function step(name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) && !['and', 'or', 'in', 'true', 'false', 'null', 'function'].includes(name) ? name : `\`${name}\``;
}

/** The example a media object gives: `example`, else the first of `examples`. */
export function exampleOf(media: Obj): unknown {
  if (media.example !== undefined) return media.example;
  for (const [, value] of entries(media.examples)) {
    const example = obj(value);
    if (example && example.value !== undefined) return example.value;
  }
  const schema = obj(media.schema);
  if (schema?.example !== undefined) return schema.example;
  const listed = arr(schema?.examples);
  return listed.length ? listed[0] : undefined;
}


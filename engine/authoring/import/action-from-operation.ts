import { MAX_ARGUMENTS, type ArgumentScope } from './argument-from-schema.ts';
import { bodyArguments, bodyEncodings, type BodyEncoding } from './arguments-from-body.ts';
import { parameterArguments } from './arguments-from-parameters.ts';
import type { Auths } from './auths-from-security.ts';
import type { ActionDefinition, Argument, ImportedAction, Skipped } from './imported-app.ts';
import { entries, isObj, obj, str, type Obj } from './json-access.ts';
import { displayName, documentation, firstParagraph, humanised, words } from './naming.ts';
import { operationKind } from './operation-kind.ts';
import { errorResponse, jsonMedia, type OperationInfo } from './operations.ts';
import { detectPagination, type PagingPlan } from './pagination-detection.ts';
import { exampleOf, responsePlan, step, type ResponsePlan } from './response-plan.ts';
import { MAX_EXAMPLE_JSON, sampleOf } from './sample-values.ts';
import { exampleOf as schemaExample } from './schema-shape.ts';
import { operationPrefix, type BaseUrl } from './servers.ts';
import { casesFor } from './test-cases.ts';

/** What every action of the app shares while it is made. */
export interface ActionContext {
  base: BaseUrl;
  /** The base URL a case's connection fills, and the host variables it must set for it. */
  caseBaseUrl: string;
  metadata: Record<string, string>;
  auths: Auths;
  bodyEncoding: BodyEncoding;
  /** api.yaml's appError expression, if any: a failure case expects what it gives. */
  appError: string | undefined;
}

export type ActionOutcome = { action: ImportedAction; paging: PagingPlan | undefined; skipped: Skipped[] } | { skip: string };

/**
 * One operation as an action: its path, its arguments (parameters, then the
 * body's fields), what kind of operation it is, how it pages, a response
 * mapping that unwraps its data, and its offline cases. `id` is the action's
 * id and slug (chosen by the caller, which knows the others). Notes for the
 * author go to `note`, naming the operation.
 */
export async function actionFrom(op: OperationInfo, id: string, ctx: ActionContext, note: (message: string) => void): Promise<ActionOutcome> {
  const prefix = operationPrefix(op, ctx.base);
  if ('skip' in prefix) return { skip: prefix.skip };
  const scope: ArgumentScope = { taken: new Set(), note: (m) => note(`${op.label}: ${m}`), left: MAX_ARGUMENTS };

  let encoding: BodyEncoding | undefined;
  if (isObj(op.operation.requestBody) && (op.method === 'GET' || op.method === 'DELETE')) {
    scope.note(`its request body is dropped: the gateway sends no body with a ${op.method}`);
  } else {
    const offered = bodyEncodings(op);
    if ('skip' in offered) return { skip: offered.skip };
    if (offered.encodings.length) {
      if (!offered.encodings.includes(ctx.bodyEncoding)) return { skip: `its body is ${offered.encodings[0] === 'Form' ? 'a form' : 'JSON'} and this app's bodies are ${ctx.bodyEncoding === 'Form' ? 'forms' : 'JSON'} (api.yaml's bodyEncoding is one per version)` };
      encoding = ctx.bodyEncoding;
    }
  }
  const params = parameterArguments(op, prefix.prefix, scope, { headers: ctx.auths.credentialHeaders, query: ctx.auths.credentialQuery });
  if ('skip' in params) return { skip: params.skip };
  let args: Argument[] = params.arguments;
  if (encoding) {
    const body = bodyArguments(op, encoding, scope);
    if ('skip' in body) return { skip: body.skip };
    args.push(...body);
  }
  if (scope.left <= 0) scope.note(`more than ${MAX_ARGUMENTS} arguments: the rest are left to their parent objects`);

  const verb = words(op.operationId ?? '')
    .slice(0, 4)
    .map((w) => w.toLowerCase());
  const plan = responsePlan(op, verb.includes('list') || verb.includes('search') || verb.includes('all'));
  const operation = operationKind(op, plan.listed);
  const paging = operation === 'list' || operation === 'search' ? detectPagination(args, plan, op.method) : undefined;
  if (paging?.filled) args = args.filter((a) => a.key !== paging.filled);
  // The engine's `cursor` argument carries the page cursor; a parameter of that key the pagination does not fill is renamed.
  const clash = paging ? args.find((a) => a.key === 'cursor' && a.parent === undefined) : undefined;
  if (clash) {
    clash.externalKey ??= clash.key;
    clash.key = 'pageCursor';
    scope.note(`parameter ${clash.externalKey} is the argument pageCursor: cursor is the key of the page cursor (pagination ${paging!.pagination.type})`);
  }

  const summary = str(op.operation.summary)?.trim();
  const text = str(op.operation.description) ?? '';
  // An operationId of no Latin words (列表) is its own name; a name is never empty.
  const name = displayName(summary || firstParagraph(text) || (op.operationId ? humanised(op.operationId) || op.operationId : '')) || `${op.method} ${op.path}`;
  const definition: ActionDefinition = { id, slug: id, name, operation, method: op.method, path: paramsPath(params.path) };
  const described = documentation(text);
  // A description that only repeats the name says nothing more.
  if (described && described.replace(/\.$/, '') !== name && described !== summary) definition.description = described;
  if (args.length) definition.arguments = args;
  const response = mappingOf(plan, paging?.mappingCursor);
  if (response) definition.response = response;
  if (paging) definition.pagination = paging.pagination;

  const docs = str(obj(op.operation.externalDocs)?.url);
  const comments = [`${op.label}${docs ? `: ${docs}` : ''}`];
  const cases = await casesFor(
    {
      action: definition,
      baseUrl: ctx.caseBaseUrl,
      metadata: ctx.metadata,
      bodyEncoding: ctx.bodyEncoding,
      auth: ctx.auths.test,
      response: plan,
      paging,
      examples: examplesOf(op, args, encoding),
      failure: failureOf(op, plan),
      renewsOn401: ctx.auths.auths[0]!.definition.type.startsWith('OAuth2'),
      appError: ctx.appError,
    },
    scope.note,
  );
  const skipped = entries(op.operation.callbacks).map(([callback]) => ({ what: `callback ${callback} of ${op.label}`, reason: 'a callback is a request the provider sends, not a call to it; the operation itself is imported' }));
  return { action: { comments, definition, cases }, paging, skipped };
}

/** The action path: already in `:name` form; kept apart for one place that says so. */
function paramsPath(path: string): string {
  return path.startsWith('/') ? path : `/${path}`;
}

/**
 * The response mapping: `data` is the listed array or the one object of a
 * wrapper (`body.droplets`), or the body itself on a success; a body field
 * that says whether the call succeeded (Slack's `ok`) decides `success`; a
 * Cursor without `next` gives `meta.cursor`. No JSON response: no mapping
 * (a 2xx body is the data as is, docs/definitions.md).
 */
function mappingOf(plan: ResponsePlan, cursor: string | undefined): string | undefined {
  if (!plan.json) return undefined;
  const lines: string[] = [];
  if (plan.okField) lines.push(`"success": body.${step(plan.okField)} = true`);
  const data = plan.data.from === 'field' ? `body.${step(plan.data.field)}` : 'body';
  // A failure answered in a 200 (`ok: false`) has no data; nor has an error status.
  lines.push(`"data": ${plan.okField ? `body.${step(plan.okField)} = true ? ${data}` : plan.data.from === 'field' ? data : `status < 300 ? ${data}`}`);
  if (cursor) lines.push(`"meta": { "cursor": ${cursor} }`);
  return `{\n  ${lines.join(',\n  ')}\n}\n`;
}

/** The description's example values by argument key: parameters' examples, and the body example's fields. */
function examplesOf(op: OperationInfo, args: Argument[], encoding: BodyEncoding | undefined): Map<string, unknown> {
  const examples = new Map<string, unknown>();
  for (const parameter of op.parameters) {
    const name = str(parameter.name);
    const arg = args.find((a) => a.location !== 'Body' && a.parent === undefined && (a.externalKey ?? a.key) === name);
    if (!arg) continue;
    const value = parameter.example ?? firstExample(parameter.examples) ?? schemaExample(parameter.schema);
    if (value !== undefined) examples.set(arg.key, value);
  }
  if (encoding) {
    const media = entries(obj(op.operation.requestBody)?.content).map(([, m]) => obj(m)).find((m) => m !== undefined);
    const example = media ? exampleOf(media) : undefined;
    for (const arg of args.filter((a) => a.location === 'Body' && a.parent === undefined)) {
      let value: unknown = example;
      for (const part of (arg.externalKey ?? arg.key).split('.')) value = isObj(value) ? value[part] : undefined;
      if (value !== undefined) examples.set(arg.key, value);
      else {
        const property = argsSchemaExample(op, arg);
        if (property !== undefined) examples.set(arg.key, property);
      }
    }
  }
  return examples;
}

function argsSchemaExample(op: OperationInfo, arg: Argument): unknown {
  const media = entries(obj(op.operation.requestBody)?.content).map(([, m]) => obj(m)).find((m) => m !== undefined);
  let schema: unknown = media?.schema;
  for (const part of (arg.externalKey ?? arg.key).split('.')) schema = obj(obj(schema)?.properties)?.[part];
  return schemaExample(schema);
}

function firstExample(examples: unknown): unknown {
  for (const [, value] of entries(examples)) if (isObj(value) && value.value !== undefined) return value.value;
  return undefined;
}

/** A failure the description documents: its first 4xx (else 5xx) with its example or a sample; for an API that answers failures in a 200 (`ok: false`), the default response's example. */
function failureOf(op: OperationInfo, plan: ResponsePlan): { status: number; body: unknown } | undefined {
  const error = errorResponse(op.operation);
  if (error) {
    const media = jsonMedia(error.response);
    return { status: error.status, body: media ? bodySample(media.media) : undefined };
  }
  if (plan.okField) {
    const media = jsonMedia(obj(obj(op.operation.responses)?.default));
    const body = media ? exampleOf(media.media) : undefined;
    if (isObj(body) && body[plan.okField] === false) return { status: 200, body };
  }
  return undefined;
}

function bodySample(media: Obj): unknown {
  const example = exampleOf(media);
  if (example !== undefined && JSON.stringify(example).length <= MAX_EXAMPLE_JSON) return example;
  return media.schema ? sampleOf(media.schema, 'response') : undefined;
}


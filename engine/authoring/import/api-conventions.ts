import type { ApiDefinition } from './imported-app.ts';
import { entries, obj, type Obj } from './json-access.ts';
import { jsonMedia, type OperationInfo } from './operations.ts';
import { step } from './response-plan.ts';
import { objectShape, typeOf } from './schema-shape.ts';

/**
 * What an API does the same way for every operation, as api.yaml says it
 * once: the shape of its error bodies (`appError`) and the header that says
 * when a rate limit resets (`retry.resetHeader`).
 */

/**
 * The default `meta.appError` from the error bodies the description
 * documents, when most of them share one shape: `{ "error": { "code",
 * "message" } }` (Stripe), `{ "errors": [{ "message" }] }` (Asana),
 * `{ "code", "message" }` or `{ "id", "message" }` (DigitalOcean),
 * `{ "ok": false, "error": "..." }` (Slack).
 */
export function appErrorOf(operations: OperationInfo[]): string | undefined {
  const counts = new Map<string, number>();
  for (const op of operations) {
    for (const [code, response] of entries(op.operation.responses)) {
      if (!/^([45]\d\d|default)$/.test(code)) continue;
      const schema = obj(jsonMedia(obj(response))?.media.schema);
      const expression = schema ? errorExpression(schema) : undefined;
      if (expression) counts.set(expression, (counts.get(expression) ?? 0) + 1);
    }
  }
  const best = [...counts].sort((a, b) => b[1] - a[1])[0];
  return best && best[1] >= Math.min(3, operations.length) ? best[0] : undefined;
}

function errorExpression(schema: Obj): string | undefined {
  if (typeOf(schema) !== 'object') return undefined;
  const fields = new Map(objectShape(schema).properties.map(([name, s]) => [name, s]));
  const text = (s: Obj | undefined) => s !== undefined && (typeOf(s) === 'string' || typeOf(s) === 'integer' || typeOf(s) === 'number');
  const inner = (holder: string, s: Obj) => {
    const own = new Map(objectShape(s).properties.map(([name, p]) => [name, p]));
    const code = ['code', 'type', 'error_code', 'errorCode', 'reason'].find((n) => text(own.get(n)));
    const message = ['message', 'detail', 'description', 'error_description', 'title'].find((n) => text(own.get(n)));
    if (!message) return undefined;
    return object([code && `"code": ${holder}.${step(code)}`, `"message": ${holder}.${step(message)}`]);
  };
  const error = fields.get('error');
  if (error && typeOf(error) === 'object') return inner('body.error', error);
  const errors = fields.get('errors');
  if (errors && typeOf(errors) === 'array') {
    const item = obj(errors.items);
    return item ? inner('body.errors[0]', item) : undefined;
  }
  const message = ['message', 'detail', 'error_description', 'title'].find((n) => text(fields.get(n)));
  const code = ['code', 'error', 'id', 'type', 'error_code', 'errorCode'].find((n) => text(fields.get(n)));
  if (message) return object([code && `"code": body.${step(code)}`, `"message": body.${step(message)}`]);
  if (fields.has('ok') && code === 'error') return object(['"code": body.error', '"message": $replace(body.error, "_", " ")']);
  return undefined;
}

function object(lines: (string | undefined | false | '')[]): string {
  return `{\n  ${lines.filter(Boolean).join(',\n  ')}\n}\n`;
}

/** A rate limit's reset header, when the description documents one on a 429 (or any response). */
export function retryOf(document: Obj): ApiDefinition['retry'] | undefined {
  const names = new Set<string>();
  const collect = (responses: unknown) => {
    for (const [, response] of entries(responses)) for (const [name] of entries(obj(response)?.headers)) names.add(name);
  };
  for (const [, item] of entries(document.paths)) for (const [, op] of entries(item)) collect(obj(op)?.responses);
  collect(obj(document.components)?.responses);
  const reset = [...names].find((n) => /^x-?rate-?limit-reset$/i.test(n));
  if (reset) return { resetHeader: { name: reset, format: 'UnixSeconds' } };
  const delta = [...names].find((n) => /^ratelimit-reset$/i.test(n));
  if (delta) return { resetHeader: { name: delta, format: 'Seconds' } };
  return undefined;
}

import { argumentsFrom, type ArgumentScope } from './argument-from-schema.ts';
import type { Argument } from './imported-app.ts';
import { entries, obj, str } from './json-access.ts';
import { camelKey, documentation, unique } from './naming.ts';
import { isJsonMediaType, type OperationInfo } from './operations.ts';
import { objectShape, typeOf } from './schema-shape.ts';

export type BodyEncoding = 'Json' | 'Form';

/** The encodings an operation's request body offers (none without a body), or why no action can send it. */
export function bodyEncodings(op: OperationInfo): { encodings: BodyEncoding[] } | { skip: string } {
  const body = obj(op.operation.requestBody);
  const content = entries(body?.content);
  if (!body || !content.length) return { encodings: [] };
  const encodings: BodyEncoding[] = [];
  for (const [type] of content) {
    if (isJsonMediaType(type)) encodings.push('Json');
    else if (/^application\/x-www-form-urlencoded\b/i.test(type)) encodings.push('Form');
  }
  if (encodings.length) return { encodings: [...new Set(encodings)] };
  const types = content.map(([type]) => type);
  if (types.some((t) => /^multipart\//i.test(t))) return { skip: 'its body is multipart (a file upload), which an action cannot send' };
  return { skip: `its body is ${types.join(' or ')}; an action sends JSON or a form` };
}

/**
 * The Body arguments of an operation's request body in `encoding`: one per
 * property of the body object (required ones required), nested objects and
 * arrays of objects as parent and children. A body that only wraps one
 * object (`{ "data": { ... } }`, as Asana's) is flattened: its fields are
 * top-level arguments whose external keys nest them (`data.name`). A body
 * object without known properties is one `asBody` Object argument; a body
 * that is not an object (an array, a string) cannot be sent by an action.
 */
export function bodyArguments(op: OperationInfo, encoding: BodyEncoding, scope: ArgumentScope): Argument[] | { skip: string } {
  const body = obj(op.operation.requestBody)!;
  const media = entries(body.content).find(([type]) => (encoding === 'Json' ? isJsonMediaType(type) : /^application\/x-www-form-urlencoded\b/i.test(type)));
  const schema = obj(obj(media?.[1])?.schema) ?? {};
  const required = body.required === true;
  const type = typeOf(schema);
  if (type === 'array') return { skip: 'its body is a JSON array, which an action cannot send as a whole' };
  if (type !== undefined && type !== 'object') return { skip: `its body is a single ${type}, which an action cannot send` };
  let { properties, required: inner } = objectShape(schema);
  let wrapper: string | undefined;
  const only = properties.length === 1 ? properties[0]! : undefined;
  if (only && typeOf(only[1]) === 'object' && objectShape(only[1]).properties.length && !only[0].includes('.')) {
    wrapper = only[0];
    const wrapped = objectShape(only[1]);
    const wrapperRequired = required && inner.has(wrapper);
    properties = wrapped.properties;
    inner = new Set([...wrapped.required].filter(() => wrapperRequired));
  }
  const writable = properties.filter(([name, property]) => property.readOnly !== true && name !== '' && !name.includes('.'));
  const dotted = properties.map(([name]) => name).filter((name) => name.includes('.'));
  if (dotted.length) {
    const shown = dotted.slice(0, 5).map((name) => `"${name}"`).join(', ');
    scope.note(`body field${dotted.length === 1 ? '' : 's'} ${shown}${dotted.length > 5 ? ` and ${dotted.length - 5} more` : ''} dropped: a dot in a name would read as nesting`);
  }
  if (!writable.length) {
    const text = documentation(str(schema.description) ?? 'The request body, as the API takes it.');
    return [{ key: unique('body', scope.taken), ...(text ? { description: text } : {}), dataType: 'Object', location: 'Body', ...(required ? { required: true } : {}), asBody: true }];
  }
  const args: Argument[] = [];
  for (const [name, property] of writable) {
    const external = wrapper ? `${wrapper}.${name}` : name;
    const own = camelKey(name);
    const key = scope.taken.has(own) ? unique(camelKey(`body_${name}`), scope.taken) : unique(own, scope.taken);
    args.push(...argumentsFrom({ name, key, externalKey: external, schema: property, required: (wrapper ? inner.has(name) : required && inner.has(name)), location: 'Body', depth: wrapper ? 1 : 0 }, scope));
  }
  return args;
}


import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { validationError, type FieldProblem } from '../errors/index.ts';

// ajv-formats is CommonJS with a default export in its types.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

/** One Ajv for request and response schemas of the HTTP surface: every error, formats on. */
export const httpAjv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true, coerceTypes: false, useDefaults: false });
addFormats(httpAjv);

/** Compiles a schema once; the returned function narrows valid input or throws VALIDATION_ERROR listing every problem. */
export function compileValidator<T>(schema: object, subject: string): (input: unknown) => T {
  const validate: ValidateFunction = httpAjv.compile(schema);
  return (input: unknown): T => {
    if (validate(input)) return input as T;
    throw validationError(toFieldProblems(validate.errors ?? [], subject, input));
  };
}

/**
 * ajv's errors in the product's words: the field by its path, the rule by its keyword. The path is written as every
 * other problem's is: keys joined by dots, an array's items by their index in brackets (`apps[0].connectionId`),
 * read off `data` (the value checked); without it, every segment is a key.
 */
export function toFieldProblems(errors: ErrorObject[], subject: string, data?: unknown): FieldProblem[] {
  return errors.map((error) => {
    const path = error.instancePath.split('/').slice(1).map(decodePointer);
    if (error.keyword === 'required') path.push(String(error.params.missingProperty));
    if (error.keyword === 'additionalProperties') path.push(String(error.params.additionalProperty));
    return { field: path.length ? fieldPath(path, data) : subject, rule: error.keyword, message: describe(error) };
  });
}

/** `apps[0].connectionId`: a segment is an index where the value it is taken from is an array. */
function fieldPath(segments: string[], data: unknown): string {
  let field = '';
  let at = data;
  for (const segment of segments) {
    if (Array.isArray(at) && /^\d+$/.test(segment)) field += `[${segment}]`;
    else field += field === '' ? segment : `.${segment}`;
    at = at !== null && typeof at === 'object' && Object.hasOwn(at, segment) ? (at as Record<string, unknown>)[segment] : undefined;
  }
  return field;
}

function describe(error: ErrorObject): string {
  switch (error.keyword) {
    case 'required':
      return 'is required';
    case 'additionalProperties':
      return 'is not a known field';
    case 'type':
      return `must be ${typeList(String(error.params.type).split(','))}`;
    case 'format':
      return `must be a valid ${String(error.params.format)}`;
    case 'enum': {
      const allowed = (error.params.allowedValues as unknown[]) ?? [];
      const shown = allowed.slice(0, ENUM_SHOWN).map((value) => JSON.stringify(value)).join(', ');
      return `must be one of ${shown}${allowed.length > ENUM_SHOWN ? `, … (${allowed.length} in all)` : ''}`;
    }
    case 'const':
      return `must be ${JSON.stringify(error.params.allowedValue)}`;
    default:
      return error.message ?? 'is invalid';
  }
}

/** The values of an enum a message names at most. */
const ENUM_SHOWN = 20;

/** `a string`, `a string or null`, `a string, a number or a boolean`. */
function typeList(types: string[]): string {
  const named = types.map((type) => (type === 'null' ? 'null' : article(type)));
  return named.length === 1 ? named[0]! : `${named.slice(0, -1).join(', ')} or ${named.at(-1)}`;
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

function decodePointer(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

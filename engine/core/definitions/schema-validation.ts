import fs from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { PACKAGE_ROOT } from '../../platform/package-root.ts';
import type { DefinitionKind } from './layout.ts';
import type { DefinitionPath, ParsedFile } from './parsed-file.ts';
import { problemAt, type DefinitionProblem, type ProblemCode } from './problems.ts';

/** schemas/ at the repository root: the single source of truth for every definition kind. */
export const SCHEMAS_DIR = path.join(PACKAGE_ROOT, 'schemas');

const SCHEMA_OF: Record<DefinitionKind, string> = {
  app: 'app.schema.json',
  api: 'api.schema.json',
  auth: 'auth.schema.json',
  action: 'action.schema.json',
};

// Compiled once per process: every error (allErrors), the failing schema kept (verbose) to name the allowed properties.
const ajv = new Ajv2020({ allErrors: true, verbose: true, strict: true, allowUnionTypes: true, discriminator: true });
for (const name of fs.readdirSync(SCHEMAS_DIR).filter((n) => n.endsWith('.schema.json')).sort()) {
  ajv.addSchema(JSON.parse(fs.readFileSync(path.join(SCHEMAS_DIR, name), 'utf8')) as object);
}
const validators = new Map<DefinitionKind, ValidateFunction>();

function validatorOf(kind: DefinitionKind): ValidateFunction {
  let validate = validators.get(kind);
  if (!validate) {
    validate = ajv.getSchema(SCHEMA_OF[kind])!;
    validators.set(kind, validate);
  }
  return validate;
}

/**
 * Stage 3: the file against its kind's schema; every ajv error becomes a
 * problem at its YAML node. Only the first `max` distinct problems are
 * located (finding a node walks the file's tree: 20,000 of them, each a scan
 * of a 20,000-key mapping, took seconds); `omitted` counts the others.
 */
export function validateAgainstSchema(kind: DefinitionKind, parsed: ParsedFile, max = Infinity): { problems: DefinitionProblem[]; omitted: number } {
  const validate = validatorOf(kind);
  if (validate(parsed.value)) return { problems: [], omitted: 0 };
  const seen = new Set<string>();
  const problems: DefinitionProblem[] = [];
  let omitted = 0;
  for (const error of validate.errors ?? []) {
    const found = toProblem(error, kind);
    // The same rule at the same place, reached through two schema branches, is one problem.
    const key = `${found.located.join('\0')}:${found.code}:${found.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (problems.length >= max) omitted++;
    else problems.push(problemAt(found.keyword === 'additionalProperties' ? parsed.locateKey(found.located) : parsed.locate(found.located), found.code, found.message));
  }
  return { problems, omitted };
}

function toProblem(error: ErrorObject, kind: DefinitionKind): { keyword: string; code: ProblemCode; message: string; located: DefinitionPath } {
  const at: DefinitionPath = pointerToPath(error.instancePath);
  const where = describePath(at) ?? `the ${kind} definition`;
  const params = error.params as Record<string, unknown>;
  const [code, message, located] = ((): [ProblemCode, string, DefinitionPath] => {
    switch (error.keyword) {
      case 'required':
        return ['SCHEMA_REQUIRED', `${where} is missing required property "${String(params.missingProperty)}"`, at];
      case 'additionalProperties': {
        const name = String(params.additionalProperty);
        const known = Object.keys((error.parentSchema as { properties?: object } | undefined)?.properties ?? {});
        return ['SCHEMA_UNKNOWN_PROPERTY', `property "${name}" is not allowed in ${where}${known.length ? ` (allowed: ${known.join(', ')})` : ''}`, [...at, name]];
      }
      case 'type':
        return ['SCHEMA_TYPE', `${where} must be ${article(String(params.type).replace(/,/g, ' or '))}, not ${typeName(error.data)}`, at];
      case 'enum':
        return ['SCHEMA_ENUM', `${where} must be one of ${(params.allowedValues as unknown[]).join(', ')} (got ${JSON.stringify(error.data)})`, at];
      case 'const':
        return ['SCHEMA_ENUM', `${where} must be ${JSON.stringify(params.allowedValue)} (got ${JSON.stringify(error.data)})`, at];
      case 'discriminator': {
        const tagPath = [...at, String(params.tag)];
        if (params.error === 'mapping') {
          const allowed = discriminatorValues(error.parentSchema);
          return ['SCHEMA_ENUM', `${describePath(tagPath)} must be one of ${allowed.join(', ')} (got ${JSON.stringify(params.tagValue)})`, tagPath];
        }
        return ['SCHEMA_REQUIRED', `${where} is missing required property "${String(params.tag)}"`, at];
      }
      case 'pattern':
        return ['SCHEMA_PATTERN', `${where} ${JSON.stringify(error.data)} must match ${String(params.pattern)}${patternHint(String(params.pattern))}`, at];
      default:
        return ['SCHEMA_INVALID', `${where} ${error.message ?? 'is invalid'}`, at];
    }
  })();
  return { keyword: error.keyword, code, message, located };
}

const PATTERN_HINTS: Record<string, string> = {
  '^[a-z0-9]+(-[a-z0-9]+)*$': ' (kebab-case: lowercase letters and digits joined by single hyphens)',
  '^[a-z][a-zA-Z0-9]*$': ' (camelCase: a lowercase letter, then letters and digits)',
  '^https?://\\S+$': ' (an absolute http(s) URL)',
  '^https://\\S+$': ' (an absolute https URL)',
  '^https://[^\\s/?#@]+([/?#][^\\s]*)?$': ' (an absolute https URL, without a user name)',
  '^/(?!(\\S*/)?(\\.|%2[eE]){1,2}(/|$))(?!\\S*\\{\\{)\\S*$': ' (a path starting with /, without a . or .. segment, which would leave its place under baseUrl, and without {{variables}}: a Param argument fills :name)',
  '^[\\u0001-\\u0009\\u000b\\u000c\\u000e-\\u00ff]*$': ' (one line of Latin-1 text: no line break or NUL, and no character beyond U+00FF such as typographic quotes or a euro sign, which HTTP cannot send)',
};

function patternHint(pattern: string): string {
  return PATTERN_HINTS[pattern] ?? '';
}

function discriminatorValues(schema: unknown): string[] {
  const branches = (schema as { oneOf?: { $ref: string }[] }).oneOf ?? [];
  return branches.map((branch) => {
    const resolved = ajv.getSchema(`${(schema as { $id?: string }).$id ?? ''}${branch.$ref}`)?.schema as
      | { properties?: { type?: { const?: string } } }
      | undefined;
    return resolved?.properties?.type?.const ?? branch.$ref;
  });
}

function pointerToPath(pointer: string): (string | number)[] {
  if (!pointer) return [];
  return pointer
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

/** arguments[2].list.type, the way an author would find it in the file. */
function describePath(path: DefinitionPath): string | null {
  if (!path.length) return null;
  return path.map((s, i) => (typeof s === 'number' ? `[${s}]` : i === 0 ? s : `.${s}`)).join('');
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  // YAML's .nan and .inf are numbers to JavaScript, not to JSON: "must be a number, not a number" would name no rule.
  if (typeof value === 'number' && Number.isNaN(value)) return 'NaN (.nan: JSON has no such number)';
  if (typeof value === 'number' && !Number.isFinite(value)) return 'an infinite number (.inf, or one too large for JSON)';
  return article(typeof value);
}

function article(word: string): string {
  return /^[aeiou]/.test(word) ? `an ${word}` : `a ${word}`;
}

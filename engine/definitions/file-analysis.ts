import { DEFAULT_MAPPING_LIMITS, type MappingLimits } from '../mapping/index.ts';
import type { ActionDefinition, ApiDefinition, AppDefinition, AuthDefinition } from './generated/definition-types.ts';
import { compileExpression, type CompiledExpression } from './expressions.ts';
import { placeOf, type FilePlace } from './layout.ts';
import { parseDefinitionFile, type DefinitionPath, type ParsedFile } from './parsed-file.ts';
import { problemAt, type DefinitionProblem } from './problems.ts';
import { validateAgainstSchema } from './schema-validation.ts';
import { YAML_FILE, type SourceFile } from './source-files.ts';

export interface DefinitionOfKind {
  app: AppDefinition;
  api: ApiDefinition;
  auth: AuthDefinition;
  action: ActionDefinition;
}

/**
 * Everything learned from one file alone: where it sits, its YAML, its schema
 * problems and its compiled expressions. It depends only on the file's path
 * and text, so it is cached by content hash and reused across reloads.
 */
export interface FileAnalysis<K extends keyof DefinitionOfKind = keyof DefinitionOfKind> {
  source: SourceFile;
  place: FilePlace;
  parsed: ParsedFile | null;
  /** The definition when it is valid against its schema; null otherwise. */
  definition: DefinitionOfKind[K] | null;
  /** id and slug read loosely even from an invalid file, so references to it do not cascade into more errors. */
  names: { id?: string; slug?: string };
  /** Compiled expressions by path, e.g. "response" or "arguments.2.mapper". */
  expressions: ReadonlyMap<string, CompiledExpression>;
  problems: DefinitionProblem[];
}

export function expressionKey(path: DefinitionPath): string {
  return path.join('.');
}

/** Stages 2, 3 and the compile stage for one file: parse, validate, compile. */
export function analyseFile(source: SourceFile, limits: MappingLimits = DEFAULT_MAPPING_LIMITS): FileAnalysis {
  const place = placeOf(source.file);
  const base = { source, place, parsed: null, definition: null, names: {}, expressions: new Map() };
  if (place.kind === 'unexpected') {
    return { ...base, problems: [problemAt({ file: source.file, line: 1, column: 1 }, place.code, place.reason)] };
  }
  // An auth or action whose id cannot be read is assumed to be named after its file, as the layout asks,
  // so references to it still resolve and its one problem does not cascade.
  const fallback = place.kind === 'auth' || place.kind === 'action' ? { id: source.file.split('/').at(-1)!.replace(YAML_FILE, '') } : {};
  const { parsed, problems } = parseDefinitionFile(source);
  if (!parsed) return { ...base, names: fallback, problems };
  const names = { ...fallback, ...looseNames(parsed.value) };
  const schemaProblems = validateAgainstSchema(place.kind, parsed);
  // Expressions are compiled even in a file the schema rejects: the author gets every problem of the file at once.
  const expressions = new Map<string, CompiledExpression>();
  const compileProblems: DefinitionProblem[] = [];
  for (const [path, text] of expressionsOf(parsed.value)) {
    const { compiled, problem } = compileExpression(parsed, path, text, limits);
    if (compiled) expressions.set(expressionKey(path), compiled);
    if (problem) compileProblems.push(problem);
  }
  const definition = schemaProblems.length ? null : (parsed.value as DefinitionOfKind[typeof place.kind]);
  return { source, place, parsed, definition, names, expressions, problems: [...schemaProblems, ...compileProblems] };
}

/** Every JSONata string of a definition, with its path: argument mappers, response mappings, exchange mappings. */
function expressionsOf(value: unknown): [DefinitionPath, string][] {
  const found: [DefinitionPath, string][] = [];
  const record = (value ?? {}) as { arguments?: unknown; response?: unknown };
  if (Array.isArray(record.arguments)) {
    record.arguments.forEach((arg: unknown, i) => {
      const mapper = (arg as { mapper?: unknown } | null)?.mapper;
      if (typeof mapper === 'string') found.push([['arguments', i, 'mapper'], mapper]);
    });
  }
  if (typeof record.response === 'string') found.push([['response'], record.response]);
  return found;
}

function looseNames(value: unknown): { id?: string; slug?: string } {
  const record = (value ?? {}) as Record<string, unknown>;
  const names: { id?: string; slug?: string } = {};
  if (typeof record.id === 'string') names.id = record.id;
  if (typeof record.slug === 'string') names.slug = record.slug;
  return names;
}

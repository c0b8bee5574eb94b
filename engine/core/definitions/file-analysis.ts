import { DEFAULT_MAPPING_LIMITS, type MappingLimits } from '../mapping/index.ts';
import type { ActionDefinition, ApiDefinition, AppDefinition, AuthDefinition } from './generated/definition-types.ts';
import { checkedExpression, envelopeFlagProblems, expressionProblem, type CompiledExpression } from './expressions.ts';
import { placeOf, type FilePlace } from './layout.ts';
import { parseDefinitionFile, ParsedFile, type DefinitionPath } from './parsed-file.ts';
import { failureProblem, listedProblems, MAX_PROBLEMS_PER_FILE, problemAt, type DefinitionProblem } from './problems.ts';
import { validateAgainstSchema } from './schema-validation.ts';
import { shareStrings } from './shared-strings.ts';
import { YAML_FILE, type SourceFile } from './source-files.ts';
import { PAGINATION_EXPRESSIONS, RETRY_EXPRESSIONS } from './snapshot.ts';

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

/**
 * What analysing one file finds, as plain data: it can cross a worker
 * thread's boundary (parallel-analysis.ts) and becomes a FileAnalysis again
 * with `fromSummary`.
 */
export interface FileSummary {
  /** False when the YAML does not parse (then `value` is null). */
  parsed: boolean;
  value: unknown;
  valid: boolean;
  names: { id?: string; slug?: string };
  /** The expressions that compile, by path; those that do not are problems. */
  expressions: [DefinitionPath, string][];
  problems: DefinitionProblem[];
}

/** Stages 2, 3 and the compile stage for one file: parse, validate, compile. */
export function analyseFile(source: SourceFile, limits: MappingLimits = DEFAULT_MAPPING_LIMITS): FileAnalysis {
  return fromSummary(source, summariseFile(source), limits);
}

/**
 * What one file alone shows, its problems listed as listedProblems bounds
 * them. Never throws: an unexpected exception is that file's
 * ANALYSIS_FAILED problem, so one file cannot stop a load (nor every later
 * one, while it stays in the folder).
 */
export function summariseFile(source: SourceFile): FileSummary {
  try {
    return summarise(source);
  } catch (error) {
    return failedSummary(source, error);
  }
}

function summarise(source: SourceFile): FileSummary {
  const place = placeOf(source.file);
  const base = { parsed: false, value: null, valid: false, names: {}, expressions: [] };
  if (place.kind === 'unexpected') {
    return { ...base, problems: [problemAt({ file: source.file, line: 1, column: 1 }, place.code, place.reason)] };
  }
  const fallback = fallbackNames(source);
  const { parsed, problems } = parseDefinitionFile(source);
  if (!parsed) return { ...base, names: fallback, problems: listedProblems(problems) };
  const names = { ...fallback, ...looseNames(parsed.value) };
  // One more than are listed: where the first left out is, for PROBLEMS_OMITTED.
  const schema = validateAgainstSchema(place.kind, parsed, MAX_PROBLEMS_PER_FILE + 1);
  // Expressions are compiled even in a file the schema rejects: the author gets every problem of the file at once.
  const expressions: [DefinitionPath, string][] = [];
  const compileProblems: DefinitionProblem[] = [];
  for (const [path, text] of expressionsOf(parsed.value)) {
    const problem = expressionProblem(parsed, path, text);
    if (problem) compileProblems.push(problem);
    else expressions.push([path, text]);
    if (!problem && place.kind === 'action' && path.length === 1 && path[0] === 'response') compileProblems.push(...envelopeFlagProblems(parsed, path, text));
  }
  const valid = !schema.problems.length;
  return { parsed: true, value: parsed.value, valid, names, expressions, problems: listedProblems([...schema.problems, ...compileProblems], schema.omitted) };
}

/** An auth or action whose id cannot be read is assumed to be named after its file, as the layout asks, so references to it still resolve and its problem does not cascade. */
function fallbackNames(source: SourceFile): { id?: string } {
  const place = placeOf(source.file);
  return place.kind === 'auth' || place.kind === 'action' ? { id: source.file.split('/').at(-1)!.replace(YAML_FILE, '') } : {};
}

/** What an analysis that threw (or could not run) leaves: the file's ANALYSIS_FAILED problem. */
export function failedSummary(source: SourceFile, error: unknown): FileSummary {
  let names = {};
  try {
    names = fallbackNames(source);
  } catch {
    // The path itself is what failed: no names.
  }
  return { parsed: false, value: null, valid: false, names, expressions: [], problems: [failureProblem(source.file, error, 'the file could not be analysed')] };
}

/**
 * The FileAnalysis a summary stands for, on the thread that keeps it (its
 * short strings shared with the thread's other definitions); positions are
 * found again from the text when something asks for one. An exception here
 * too is the file's ANALYSIS_FAILED problem.
 */
export function fromSummary(source: SourceFile, summary: FileSummary, limits: MappingLimits = DEFAULT_MAPPING_LIMITS): FileAnalysis {
  try {
    return analysisOf(source, summary, limits);
  } catch (error) {
    return analysisOf(source, failedSummary(source, error), limits);
  }
}

function analysisOf(source: SourceFile, summary: FileSummary, limits: MappingLimits): FileAnalysis {
  const place = placeOf(source.file);
  const parsed = summary.parsed ? new ParsedFile(source, shareStrings(summary.value)) : null;
  const expressions = new Map<string, CompiledExpression>();
  if (parsed) for (const [path, text] of summary.expressions) expressions.set(expressionKey(path), checkedExpression(parsed, path, text, limits));
  const definition = parsed && summary.valid ? (summary.value as DefinitionOfKind[keyof DefinitionOfKind]) : null;
  return { source, place, parsed, definition, names: summary.names, expressions, problems: summary.problems };
}

/** Every JSONata string of a definition, with its path: argument mappers, response mappings, exchange mappings, an API's default appError mapping and rate-limit expressions, pagination expressions, an OAuth auth's post-authorization expressions, an auth's verification account. */
export function expressionsOf(value: unknown): [DefinitionPath, string][] {
  const found: [DefinitionPath, string][] = [];
  const record = (value ?? {}) as { arguments?: unknown; response?: unknown; appError?: unknown };
  if (Array.isArray(record.arguments)) {
    record.arguments.forEach((arg: unknown, i) => {
      const mapper = (arg as { mapper?: unknown } | null)?.mapper;
      if (typeof mapper === 'string') found.push([['arguments', i, 'mapper'], mapper]);
    });
  }
  if (typeof record.response === 'string') found.push([['response'], record.response]);
  if (typeof record.appError === 'string') found.push([['appError'], record.appError]);
  const retry = (record as { retry?: unknown }).retry;
  if (retry !== null && typeof retry === 'object') {
    for (const key of RETRY_EXPRESSIONS) {
      const text = (retry as Record<string, unknown>)[key];
      if (typeof text === 'string') found.push([['retry', key], text]);
    }
  }
  const pagination = (record as { pagination?: unknown }).pagination;
  if (pagination !== null && typeof pagination === 'object') {
    for (const key of PAGINATION_EXPRESSIONS) {
      const text = (pagination as Record<string, unknown>)[key];
      if (typeof text === 'string') found.push([['pagination', key], text]);
    }
  }
  const post = (record as { postAuthorization?: unknown }).postAuthorization;
  if (post !== null && typeof post === 'object') {
    const { options, label, metadata } = post as Record<string, unknown>;
    if (typeof options === 'string') found.push([['postAuthorization', 'options'], options]);
    if (typeof label === 'string') found.push([['postAuthorization', 'label'], label]);
    if (metadata !== null && typeof metadata === 'object') {
      for (const [key, text] of Object.entries(metadata)) if (typeof text === 'string') found.push([['postAuthorization', 'metadata', key], text]);
    }
  }
  const verify = (record as { verify?: unknown }).verify;
  if (verify !== null && typeof verify === 'object' && typeof (verify as { account?: unknown }).account === 'string') {
    found.push([['verify', 'account'], (verify as { account: string }).account]);
  }
  return found;
}

function looseNames(value: unknown): { id?: string; slug?: string } {
  const record = (value ?? {}) as Record<string, unknown>;
  const names: { id?: string; slug?: string } = {};
  if (typeof record.id === 'string') names.id = record.id;
  if (typeof record.slug === 'string') names.slug = record.slug;
  return names;
}

import type jsonata from 'jsonata';
import { DEFAULT_MAPPING_LIMITS, guardedJsonata, type MappingLimits } from '../mapping/index.ts';
import { envelopeFlagFindings, type EnvelopeFlagFinding } from './envelope-flags.ts';
import { parseJsonata, type JsonataSyntaxError } from './jsonata-syntax/index.ts';
import type { DefinitionPath, ParsedFile } from './parsed-file.ts';
import { problemAt, type DefinitionProblem, type SourceLocation } from './problems.ts';
import { sourceOffsetOf } from './scalar-offsets.ts';

/**
 * A JSONata expression of a definition, checked when the definitions load
 * and compiled on its first run. `at` is where its text starts, for errors
 * raised when it runs.
 */
export interface CompiledExpression {
  readonly source: string;
  readonly expression: jsonata.Expression;
  readonly at: SourceLocation;
}

/**
 * Checks that the string at `path` compiles; null when it does. A syntax
 * error is located at the offending character in the file, wherever the YAML
 * string is written (block, quoted or plain). jsonata reports the position
 * just after the offending token.
 */
export function expressionProblem(parsed: ParsedFile, path: DefinitionPath, source: string): DefinitionProblem | null {
  const { error } = factsOf(source);
  if (!error) return null;
  const code = error.code ? ` (${error.code})` : '';
  // jsonata's parser is recursive: an expression of hundreds of thousands of terms runs it out of call stack.
  const message = error.message?.includes('Maximum call stack size exceeded')
    ? `the expression is too long or nested too deep for the JSONata parser (${source.length} characters): split it, or compute the long part with a function such as $map or $reduce`
    : `${error.message ?? 'does not parse'}${code}`;
  return problemAt(locationIn(parsed, path, source, (error.position ?? 1) - 1), 'JSONATA_SYNTAX', `JSONata: ${message}`);
}

/**
 * The ENVELOPE_FLAG_NOT_BOOLEAN problems of a response mapping that
 * compiles: a flag of the envelope given a value that is certainly not a
 * boolean (envelope-flags.ts says which), each located at the flag's key.
 */
export function envelopeFlagProblems(parsed: ParsedFile, path: DefinitionPath, source: string): DefinitionProblem[] {
  return factsOf(source).flags.map((finding) => problemAt(locationIn(parsed, path, source, finding.offset), 'ENVELOPE_FLAG_NOT_BOOLEAN', finding.message));
}

/** Where the 0-based `offset` of the expression at `path` is in the file, wherever the YAML string is written. */
function locationIn(parsed: ParsedFile, path: DefinitionPath, source: string, offset: number): SourceLocation {
  const scalar = parsed.scalarAt(path);
  const clamped = Math.min(Math.max(0, offset), Math.max(0, source.length - 1));
  return scalar ? parsed.position(sourceOffsetOf(parsed.source.text, scalar, clamped)) : parsed.locate(path);
}

/** The CompiledExpression of a string expressionProblem found no problem with. */
export function checkedExpression(parsed: ParsedFile, path: DefinitionPath, source: string, limits: MappingLimits = DEFAULT_MAPPING_LIMITS): CompiledExpression {
  return new LazyExpression(source, limits, parsed, path);
}

/**
 * Whether `source` parses (and what it sets the envelope's flags to),
 * remembered by its text: a catalogue repeats the same small expressions
 * (`$lowercase(value)`) across thousands of actions.
 * Only parsed here, so a syntax error is a load problem: a compiled
 * expression holds about 14 KB, and most of a large catalogue's never run
 * (1,000 apps x 30 actions kept 840 MB of them); its first evaluation
 * compiles it with jsonata. The parse is jsonata's own parser copied with
 * its symbol table built once (jsonata-syntax/): jsonata() builds it on every
 * call, 50 to 200 µs an expression, 5 to 10x the parse itself.
 */
function factsOf(source: string): ExpressionFacts {
  const known = checked.get(source);
  if (known !== undefined) return known;
  const parse = parseJsonata(source);
  // The envelope flags are read from the same parse: a second would cost as much again.
  const facts: ExpressionFacts = parse.error ? { error: parse.error, flags: NO_FLAGS } : { error: null, flags: envelopeFlagFindings(parse.ast) };
  // Bounded: a long-running gateway reloading edited definitions must not keep every text it ever saw.
  if (checked.size >= CHECKED_MAX) checked.clear();
  checked.set(source, facts);
  return facts;
}

/** What the parse of an expression's text shows: its syntax error, or the envelope flags it can be seen to get wrong as a response mapping. */
interface ExpressionFacts {
  error: JsonataSyntaxError | null;
  flags: readonly EnvelopeFlagFinding[];
}

const NO_FLAGS: readonly EnvelopeFlagFinding[] = Object.freeze([]);
const checked = new Map<string, ExpressionFacts>();
const CHECKED_MAX = 100_000;

/** Where the expression's text starts in the file: its first character for a block scalar, else the value. */
function startOf(parsed: ParsedFile, path: DefinitionPath): SourceLocation {
  const scalar = parsed.scalarAt(path);
  if (scalar && (scalar.type === 'BLOCK_LITERAL' || scalar.type === 'BLOCK_FOLDED')) return parsed.position(sourceOffsetOf(parsed.source.text, scalar, 0));
  return parsed.locate(path);
}

/**
 * A CompiledExpression whose jsonata expression is made on first use and then
 * kept, and whose position in the file is found the first time an error
 * names it (finding it needs the file's positioned YAML tree). A class, so
 * its getters live once on the prototype: tens of thousands of them are
 * loaded and few ever run.
 */
class LazyExpression implements CompiledExpression {
  #expression: jsonata.Expression | undefined;
  #at: SourceLocation | undefined;

  constructor(
    readonly source: string,
    private readonly limits: MappingLimits,
    private readonly parsed: ParsedFile,
    private readonly path: DefinitionPath,
  ) {
    Object.freeze(this);
  }

  get at(): SourceLocation {
    return (this.#at ??= startOf(this.parsed, this.path));
  }

  get expression(): jsonata.Expression {
    return (this.#expression ??= guardedJsonata(this.source, this.limits));
  }
}

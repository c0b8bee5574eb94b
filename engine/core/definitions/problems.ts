/**
 * Every problem a definitions folder can have, by stable code. The codes are
 * part of the authoring contract (docs/definitions.md lists them, tests pin
 * one fixture per code); the messages say what is wrong in the author's words.
 */
export const PROBLEM_CODES = {
  DEFINITIONS_DIR_MISSING: 'the definitions folder does not exist or is not a folder',
  FILE_UNREADABLE: 'a definition file could not be read (not a regular file, larger than 1 MB, not UTF-8 text, or a read error)',
  YAML_SYNTAX: 'the file is not valid YAML (or has an alias naming no anchor before it, or inside its own anchor, a tag that is not a core one, or a value that is not JSON)',
  YAML_ALIAS_LIMIT: 'more than 1,000 aliases in a file, or aliases expanding it to more than 100,000 values (an alias bomb)',
  YAML_TOO_DEEP: 'mappings and sequences nested more than 100 levels deep',
  FILE_UNEXPECTED: 'a YAML file in a place the folder layout does not define',
  VERSION_NAME_INVALID: 'a version folder that is neither a positive number nor draft',
  APP_FILE_MISSING: 'an app folder without app.yaml',
  API_FILE_MISSING: 'a version folder without api.yaml',
  SCHEMA_REQUIRED: 'a required property is missing',
  SCHEMA_UNKNOWN_PROPERTY: 'a property the schema does not define',
  SCHEMA_TYPE: 'a value of the wrong JSON type',
  SCHEMA_ENUM: 'a value that is not one of the allowed values',
  SCHEMA_PATTERN: 'a string that does not have the required form',
  SCHEMA_INVALID: 'any other schema rule (length, range, uniqueness)',
  APP_ID_DUPLICATE: 'two apps with the same id',
  APP_SLUG_DUPLICATE: 'two apps with the same slug',
  ACTION_ID_DUPLICATE: 'two actions of one version with the same id',
  ACTION_SLUG_DUPLICATE: 'two actions of one version with the same slug',
  AUTH_ID_DUPLICATE: 'two auths of one version with the same id',
  ARG_KEY_DUPLICATE: 'two arguments of one action, auth or API with the same key',
  PATH_PARAM_MISSING: 'a :param in the action path with no Param argument',
  PARAM_NOT_IN_PATH: 'a Param argument whose :param is not in the action path',
  ARG_LOCATION_MISSING: 'a top-level action argument without a location',
  ARG_PARENT_MISSING: 'an argument whose parent does not exist',
  ARG_PARENT_NOT_CONTAINER: 'an argument whose parent is not an Object or Array',
  ARG_PARENT_CYCLE: 'arguments that are each other\'s parents',
  ARG_CHILD_EXTERNAL_KEY: 'an Object child whose external key does not start with its parent\'s',
  ARG_HIDDEN_REQUIRED_NO_DEFAULT: 'a hidden required argument without a default: nobody could fill it',
  ARG_DEFAULT_TYPE: 'a default that does not match the data type (or the Fixed options)',
  ARG_MAX_LENGTH_NOT_STRING: 'maxLength on an argument that is not a String',
  ARG_LIST_SETTINGS: 'a List argument without list settings, or list settings on another type',
  ARG_FORMAT_NOT_DATE: 'an output format on an argument that is not a Date',
  ARG_RULE_TYPE: 'a value rule on an argument whose values are of another type: integer, minimum, maximum on a non-Number; minLength, pattern or a String format (email, uri, date-time) on a non-String',
  ARG_RULE_RANGE: 'rules no value can satisfy: minimum above maximum, or minLength above maxLength',
  ARG_PATTERN_INVALID: 'a pattern that does not compile on the linear-time engine (not a regular expression, or a backreference or lookaround)',
  ARG_DEFAULT_RULE: "a default that breaks its own argument's rules (integer, minimum, maximum, minLength, maxLength, pattern, format)",
  ID_ARGUMENT_INVALID: 'an idArgument naming no top-level argument of the action, or on an action whose operation is not delete',
  ARG_HEADER_NAME: 'a Header argument whose name (externalKey, else key) is not a valid HTTP header name',
  ARG_HEADER_RESERVED: 'a Header argument naming a header the gateway sets (Host, Content-Type, Content-Length, Connection...), a credential header (Authorization, Cookie) or the header an auth of the version uses',
  ARG_HEADER_TYPE: 'a Header argument that is an Object or an Array: a header carries one value',
  ARG_SLASHES_NOT_PARAM: 'allowSlashes on an argument that is not a top-level Param',
  ARG_AS_BODY_INVALID: 'asBody on an argument that is not a top-level Object Body argument, or on more than one argument of an action',
  ARG_ESCAPE_INVALID: 'an escape that says more than one way (characters with prefix, a style, pairs), or a way without what it needs (a prefix without characters, characters alone)',
  ARG_ARRAY_STYLE_INVALID: "arrayStyle on an argument that is not a top-level Body argument, or in a version whose api.yaml bodyEncoding is not Form",
  LOOKUP_ACTION_MISSING: 'a Lookup list naming an action the app version does not have',
  LOOKUP_ARGUMENT_UNKNOWN: 'a Lookup list passing an argument its action does not have',
  LOOKUP_SEARCH_ARGUMENT_UNKNOWN: 'a Lookup list whose searchArgument is not a visible top-level argument of its action',
  PUBLISHED_VERSION_MISSING: 'an app whose published version has no folder',
  AUTH_REF_UNRESOLVED: 'an auth id in api.yaml with no auth file of that id',
  TEMPLATE_VARIABLE_UNKNOWN: 'a {{name}} placeholder naming no argument',
  URL_VARIABLE_IN_AUTHORITY: 'a URL placeholder that could choose the host, port or origin (not whole labels before a fixed domain, nor a declared origin variable)',
  JSONATA_SYNTAX: 'a JSONata expression (mapper, response mapping, an API\'s appError or retry when/giveUpWhen, or a pagination expression) that does not compile',
  PAGINATION_BODY_ON_GET: 'a paged GET action (list or search) whose pagination (its own or the API\'s) puts the cursor, offset or page in the Body',
  ENVELOPE_FLAG_NOT_BOOLEAN: 'a response mapping that gives success, meta.authenticated or meta.tooManyRequests a value that is certainly not a boolean (a string or number literal, an object or array)',
  PROBLEMS_OMITTED: 'a file with more problems than are listed for one file (50): counts the rest, at the first not listed',
  ANALYSIS_FAILED: 'the gateway failed on a file (or the whole load) unexpectedly: a bug to report; the other files are still checked',
} as const;

export type ProblemCode = keyof typeof PROBLEM_CODES;

/**
 * The codes that warn and do not refuse: the folder still loads and serves,
 * `npm run validate` prints them and exits 0, the status route and the log
 * show them. A warning is something the engine handles by a documented rule
 * but the author almost certainly did not mean.
 */
export const WARNING_CODES: ReadonlySet<ProblemCode> = new Set<ProblemCode>(['ENVELOPE_FLAG_NOT_BOOLEAN']);

export function isWarning(problem: DefinitionProblem): boolean {
  return WARNING_CODES.has(problem.code);
}

/** One located problem. `file` is relative to the definitions folder, with forward slashes. */
export interface DefinitionProblem {
  file: string;
  line: number;
  column: number;
  code: ProblemCode;
  message: string;
}

/** A position in a definition file, 1-based like editors show it. */
export interface SourceLocation {
  file: string;
  line: number;
  column: number;
}

export function problemAt(at: SourceLocation, code: ProblemCode, message: string): DefinitionProblem {
  return { file: at.file, line: at.line, column: at.column, code, message };
}

/** The order an author reads them in: by file, then position. */
export function sortProblems(problems: DefinitionProblem[]): DefinitionProblem[] {
  return [...problems].sort(
    (a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0) || a.line - b.line || a.column - b.column || a.code.localeCompare(b.code),
  );
}

/** `<file>:<line>:<column> <CODE> <message>`, with the file as the reader should open it. */
export function formatProblem(problem: DefinitionProblem, displayFile: (file: string) => string = (f) => f): string {
  return `${displayFile(problem.file)}:${problem.line}:${problem.column} ${problem.code} ${problem.message}`;
}

/** The most problems listed for one file; one PROBLEMS_OMITTED problem counts the rest. */
export const MAX_PROBLEMS_PER_FILE = 50;

/** The longest message kept: a message quotes what the author wrote (a key, a value), which may be any length. */
export const MAX_MESSAGE_CHARS = 500;

/**
 * One file's problems as they are listed: in the order they were found, at
 * most MAX_PROBLEMS_PER_FILE (then one PROBLEMS_OMITTED, at the first one
 * left out, counting them and `omitted` more found but not located), each
 * message at most MAX_MESSAGE_CHARS.
 */
export function listedProblems(problems: DefinitionProblem[], omitted = 0): DefinitionProblem[] {
  const listed = problems.slice(0, MAX_PROBLEMS_PER_FILE).map(shortened);
  const more = problems.length - listed.length + omitted;
  if (more > 0) {
    const at = problems[MAX_PROBLEMS_PER_FILE] ?? problems.at(-1)!;
    listed.push(problemAt(at, 'PROBLEMS_OMITTED', `${more} more problems in this file are not listed; fix the ${listed.length} above first`));
  }
  return listed;
}

function shortened(problem: DefinitionProblem): DefinitionProblem {
  if (problem.message.length <= MAX_MESSAGE_CHARS) return problem;
  return { ...problem, message: `${problem.message.slice(0, MAX_MESSAGE_CHARS - 1)}…` };
}

/** The problem an unexpected exception on one file (or, file '.', the whole load) becomes. */
export function failureProblem(file: string, error: unknown, what: string): DefinitionProblem {
  const reason = error instanceof Error ? error.message : String(error);
  return shortened(problemAt({ file, line: 1, column: 1 }, 'ANALYSIS_FAILED', `${what}: ${reason} (a bug in the gateway${file === '.' ? '' : '; the other files were checked'})`));
}

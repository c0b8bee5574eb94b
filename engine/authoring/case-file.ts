import { isMap, isSeq, LineCounter, parseDocument, type Document } from 'yaml';
import { aliasProblem } from '../core/definitions/yaml-aliases.ts';
import { firstLine } from '../core/definitions/parsed-file.ts';
import { isJsonObject } from '../platform/json-object.ts';

/**
 * An action's offline test cases (`actions/<action>.test.yaml`), in the
 * format docs/definitions.md ("Offline tests") describes.
 */
export interface DefinitionCase {
  name: string;
  /** 1-based line of the case in its file. */
  line: number;
  connection: { auth?: string; metadata: Record<string, unknown>; credentials: Record<string, unknown> };
  arguments: Record<string, unknown>;
  /** What the fake network answers, in order: strict lookups first, then the action's own call (and its re-sends). */
  exchanges: Exchange[];
  expect: ExpectedOutcome;
  /**
   * Where the provider documents the response this case answers with (its page's URL; for an API of this
   * repository, the file that serves it): the case is the
   * action's documented example, and its rows must have a value in every promised field the example fills.
   */
  example?: string;
}

export interface Exchange {
  /** Where it comes from in the case: `lookups[0]`, `request`, `responses[1]`. */
  label: string;
  request: ExpectedRequest | undefined;
  response: RecordedResponse;
}

export interface ExpectedRequest {
  method?: string;
  url?: string;
  query?: Record<string, unknown>;
  headers?: Record<string, unknown>;
  body?: unknown;
}

export interface RecordedResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

export type ExpectedOutcome =
  | { kind: 'envelope'; success?: boolean; data?: unknown[]; meta?: Record<string, unknown> }
  | { kind: 'error'; code: string; message?: string };

/** A place in a case file and what is wrong there. */
export interface CaseFileProblem {
  line: number;
  column: number;
  message: string;
}

export type ParsedCaseFile = { ok: true; cases: DefinitionCase[] } | { ok: false; problems: CaseFileProblem[] };

const CASE_KEYS = ['name', 'example', 'connection', 'arguments', 'lookups', 'request', 'response', 'responses', 'expect'];
const CONNECTION_KEYS = ['auth', 'metadata', 'credentials'];
const REQUEST_KEYS = ['method', 'url', 'query', 'headers', 'body'];
const RESPONSE_KEYS = ['status', 'headers', 'body'];
const EXCHANGE_KEYS = ['request', 'response'];
const ENVELOPE_KEYS = ['success', 'data', 'meta'];
const ERROR_KEYS = ['code', 'message'];

/** Parses and checks a case file; every problem comes with its line and column. */
export function parseCaseFile(text: string): ParsedCaseFile {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  const problems: CaseFileProblem[] = [];
  const at = (offset: number | undefined, message: string) => {
    const pos = lines.linePos(offset ?? 0);
    problems.push({ line: pos.line, column: pos.col, message });
  };
  if (doc.errors.length) {
    for (const error of doc.errors) at(error.pos[0], `not valid YAML: ${firstLine(error.message)}`);
    return { ok: false, problems };
  }
  // Aliases bounded as the loader bounds them (an alias bomb is refused unexpanded; yaml's own limit threw).
  const refused = aliasProblem(doc);
  if (refused) {
    at(refused.offset, refused.message);
    return { ok: false, problems };
  }
  const checker = new Checker(doc, lines, at);
  const root = doc.toJS({ maxAliasCount: -1 }) as unknown;
  if (!isJsonObject(root) || !Array.isArray(root.cases)) {
    checker.problem([], 'a case file is a mapping with a `cases` list');
    return { ok: false, problems };
  }
  checker.keys([], root, ['cases']);
  const cases: DefinitionCase[] = [];
  const names = new Set<string>();
  root.cases.forEach((raw, index) => {
    const parsed = checker.case(['cases', index], raw);
    if (!parsed) return;
    if (names.has(parsed.name)) checker.problem(['cases', index, 'name'], `two cases are named "${parsed.name}"; names are unique within a file`);
    names.add(parsed.name);
    cases.push(parsed);
  });
  if (root.cases.length === 0) checker.problem(['cases'], '`cases` is empty');
  return problems.length ? { ok: false, problems } : { ok: true, cases };
}

type Path = (string | number)[];

class Checker {
  constructor(
    private readonly doc: Document,
    private readonly lines: LineCounter,
    private readonly at: (offset: number | undefined, message: string) => void,
  ) {}

  problem(path: Path, message: string): void {
    this.at(this.offsetOf(path), message);
  }

  /** The start of the node at `path`, else of its nearest existing parent. */
  private offsetOf(path: Path): number | undefined {
    for (let n = path.length; n >= 0; n--) {
      const node = n === 0 ? this.doc.contents : this.doc.getIn(path.slice(0, n), true);
      if (node && typeof node === 'object' && 'range' in node && Array.isArray(node.range)) {
        // A key's problem is best shown at the key: for a missing one, the mapping that lacks it.
        if (n === path.length && n > 0) {
          const parent = this.doc.getIn(path.slice(0, n - 1), true);
          if (isMap(parent)) {
            const pair = parent.items.find((item) => (item.key as { value?: unknown } | null)?.value === path[n - 1]);
            const key = pair?.key as { range?: number[] } | undefined;
            if (key?.range) return key.range[0];
          }
          if (isSeq(parent)) return (node.range as number[])[0];
        }
        return (node.range as number[])[0];
      }
    }
    return undefined;
  }

  keys(path: Path, value: Record<string, unknown>, allowed: string[]): void {
    for (const key of Object.keys(value)) {
      if (!allowed.includes(key)) this.problem([...path, key], `unknown key "${key}" (allowed: ${allowed.join(', ')})`);
    }
  }

  private object(path: Path, value: unknown, what: string): Record<string, unknown> | null {
    if (value === undefined) return {};
    if (!isJsonObject(value)) {
      this.problem(path, `${what} must be a mapping`);
      return null;
    }
    return value;
  }

  case(path: Path, raw: unknown): DefinitionCase | null {
    if (!isJsonObject(raw)) {
      this.problem(path, 'a case must be a mapping with name, arguments, request, response and expect');
      return null;
    }
    this.keys(path, raw, CASE_KEYS);
    const line = this.lineOf(path);
    let ok = true;
    if (typeof raw.name !== 'string' || raw.name.trim() === '') {
      this.problem(raw.name === undefined ? path : [...path, 'name'], 'a case needs a `name` (text)');
      ok = false;
    }
    if (raw.example !== undefined && (typeof raw.example !== 'string' || !/^\S+$/.test(raw.example))) {
      this.problem([...path, 'example'], '`example` names where the provider documents the response the case answers with: its page\'s URL (or, for an API of this repository, the file)');
      ok = false;
    }
    const connection = this.connection([...path, 'connection'], raw.connection);
    const args = this.object([...path, 'arguments'], raw.arguments, '`arguments`');
    const exchanges = this.exchanges(path, raw);
    const expected = this.expect([...path, 'expect'], raw.expect);
    if (!ok || !connection || !args || !exchanges || !expected) return null;
    return { name: raw.name as string, line, connection, arguments: args, exchanges, expect: expected, ...(raw.example !== undefined ? { example: raw.example as string } : {}) };
  }

  private lineOf(path: Path): number {
    const node = this.doc.getIn(path, true) as { range?: number[] } | undefined;
    return node?.range ? this.lines.linePos(node.range[0]!).line : 1;
  }

  private connection(path: Path, raw: unknown): DefinitionCase['connection'] | null {
    const value = this.object(path, raw, '`connection`');
    if (!value) return null;
    this.keys(path, value, CONNECTION_KEYS);
    if (value.auth !== undefined && typeof value.auth !== 'string') {
      this.problem([...path, 'auth'], '`connection.auth` is the id of one of the version\'s auths');
      return null;
    }
    const metadata = this.object([...path, 'metadata'], value.metadata, '`connection.metadata`');
    const credentials = this.object([...path, 'credentials'], value.credentials, '`connection.credentials`');
    if (!metadata || !credentials) return null;
    return { ...(value.auth !== undefined ? { auth: value.auth as string } : {}), metadata, credentials };
  }

  private exchanges(path: Path, raw: Record<string, unknown>): Exchange[] | null {
    const result: Exchange[] = [];
    let ok = true;
    if (raw.lookups !== undefined) {
      if (!Array.isArray(raw.lookups)) {
        this.problem([...path, 'lookups'], '`lookups` is a list of { request, response }: the calls of strict Lookup list actions, in order');
        return null;
      }
      raw.lookups.forEach((item, index) => {
        const where = [...path, 'lookups', index];
        const value = this.object(where, item, 'a lookup exchange');
        if (!value) return void (ok = false);
        this.keys(where, value, EXCHANGE_KEYS);
        const request = value.request === undefined ? undefined : this.request([...where, 'request'], value.request);
        const response = this.response([...where, 'response'], value.response);
        if (request === null || !response) return void (ok = false);
        result.push({ label: `lookups[${index}]`, request, response });
      });
    }
    const request = raw.request === undefined ? undefined : this.request([...path, 'request'], raw.request);
    if (request === null) return null;
    if (raw.response !== undefined && raw.responses !== undefined) {
      this.problem([...path, 'responses'], 'give `response` or `responses`, not both');
      return null;
    }
    if (raw.responses !== undefined) {
      if (!Array.isArray(raw.responses) || raw.responses.length === 0) {
        this.problem([...path, 'responses'], '`responses` is a non-empty list of responses, one per attempt');
        return null;
      }
      raw.responses.forEach((item, index) => {
        const where = [...path, 'responses', index];
        // `{ request, response }`: a call other than the action's own (a token renewal), with its own expected request.
        if (isJsonObject(item) && 'response' in item) {
          this.keys(where, item, EXCHANGE_KEYS);
          const own = item.request === undefined ? undefined : this.request([...where, 'request'], item.request);
          const response = this.response([...where, 'response'], item.response);
          if (own === null || !response) return void (ok = false);
          return void result.push({ label: `responses[${index}]`, request: own, response });
        }
        const response = this.response(where, item);
        if (!response) return void (ok = false);
        result.push({ label: index === 0 ? 'request' : `request (attempt ${index + 1})`, request, response });
      });
    } else if (raw.response !== undefined) {
      const response = this.response([...path, 'response'], raw.response);
      if (!response) return null;
      result.push({ label: 'request', request, response });
    } else if (request !== undefined) {
      this.problem([...path, 'request'], 'a case with a `request` needs the `response` the provider answers');
      return null;
    }
    return ok ? result : null;
  }

  private request(path: Path, raw: unknown): ExpectedRequest | null {
    const value = this.object(path, raw, '`request`');
    if (!value) return null;
    this.keys(path, value, REQUEST_KEYS);
    for (const key of ['method', 'url'] as const) {
      if (value[key] !== undefined && typeof value[key] !== 'string') return this.problem([...path, key], `\`request.${key}\` must be text`), null;
    }
    for (const key of ['query', 'headers'] as const) {
      if (value[key] !== undefined && !isJsonObject(value[key])) return this.problem([...path, key], `\`request.${key}\` must be a mapping`), null;
    }
    return value as ExpectedRequest;
  }

  private response(path: Path, raw: unknown): RecordedResponse | null {
    if (raw === undefined) return this.problem(path, 'a `response` is needed: what the provider answers'), null;
    const value = this.object(path, raw, 'a response');
    if (!value) return null;
    this.keys(path, value, RESPONSE_KEYS);
    if (!Number.isInteger(value.status) || (value.status as number) < 100 || (value.status as number) > 599) {
      return this.problem(value.status === undefined ? path : [...path, 'status'], 'a response needs a `status` (an HTTP status code, 100 to 599)'), null;
    }
    const headers = this.object([...path, 'headers'], value.headers, '`headers`');
    if (!headers) return null;
    const names: Record<string, string> = {};
    for (const [name, header] of Object.entries(headers)) names[name.toLowerCase()] = String(header);
    return { status: value.status as number, headers: names, body: value.body ?? null };
  }

  private expect(path: Path, raw: unknown): ExpectedOutcome | null {
    if (raw === undefined) return this.problem(path, 'a case needs `expect`: the envelope, or `error: { code, message? }`'), null;
    const value = this.object(path, raw, '`expect`');
    if (!value) return null;
    if (value.error !== undefined) {
      this.keys(path, value, ['error']);
      const error = this.object([...path, 'error'], value.error, '`expect.error`');
      if (!error) return null;
      this.keys([...path, 'error'], error, ERROR_KEYS);
      if (typeof error.code !== 'string') return this.problem([...path, 'error'], '`expect.error` needs a `code`, e.g. VALIDATION_ERROR'), null;
      if (error.message !== undefined && typeof error.message !== 'string') return this.problem([...path, 'error', 'message'], '`expect.error.message` must be text'), null;
      return { kind: 'error', code: error.code, ...(error.message !== undefined ? { message: error.message as string } : {}) };
    }
    this.keys(path, value, ENVELOPE_KEYS);
    if (value.success !== undefined && typeof value.success !== 'boolean') return this.problem([...path, 'success'], '`expect.success` must be true or false'), null;
    if (value.data !== undefined && !Array.isArray(value.data)) return this.problem([...path, 'data'], '`expect.data` must be a list (the envelope\'s data is always an array)'), null;
    if (value.meta !== undefined && !isJsonObject(value.meta)) return this.problem([...path, 'meta'], '`expect.meta` must be a mapping'), null;
    return { kind: 'envelope', ...(value as { success?: boolean; data?: unknown[]; meta?: Record<string, unknown> }) };
  }
}

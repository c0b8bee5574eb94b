import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * jsonata 2.2.2's own test suite, vendored under spec/fixtures/jsonata-test-suite
 * (see its README), read as jsonata's test/run-test-suite.js reads it: every
 * group's case files (one case, or an array of them), `expr-file` read from
 * the group, the input from `data`, or `dataset` (null: no input).
 */
export const SUITE_DIR = join(import.meta.dirname, '..', 'fixtures', 'jsonata-test-suite');

export interface SuiteCase {
  /** group/file, and #n for the n-th case of a file holding several. */
  readonly id: string;
  readonly expr: string;
  readonly input: unknown;
  readonly bindings: Record<string, unknown>;
  readonly timelimit?: number;
  readonly depth?: number;
  /** What jsonata 2.2.2 answers: a value (undefined for undefinedResult), or an error code. */
  readonly expected: { ok: true; value: unknown } | { ok: false; code: string };
}

interface RawCase {
  expr?: string;
  'expr-file'?: string;
  data?: unknown;
  dataset?: string | null;
  bindings?: Record<string, unknown>;
  timelimit?: number;
  depth?: number;
  result?: unknown;
  undefinedResult?: boolean;
  code?: string;
  error?: { code: string };
}

const readJson = (path: string): unknown => JSON.parse(readFileSync(path, 'utf8'));

export function loadSuite(): SuiteCase[] {
  const datasets = new Map<string, unknown>();
  for (const name of readdirSync(join(SUITE_DIR, 'datasets'))) datasets.set(name.replace(/\.json$/, ''), readJson(join(SUITE_DIR, 'datasets', name)));
  const cases: SuiteCase[] = [];
  for (const group of readdirSync(join(SUITE_DIR, 'groups')).sort()) {
    for (const file of readdirSync(join(SUITE_DIR, 'groups', group)).filter((name) => name.endsWith('.json')).sort()) {
      const spec = readJson(join(SUITE_DIR, 'groups', group, file)) as RawCase | RawCase[];
      const list = Array.isArray(spec) ? spec : [spec];
      list.forEach((raw, index) => {
        const id = `${group}/${file}${Array.isArray(spec) ? `#${index}` : ''}`;
        const expr = raw['expr-file'] !== undefined ? readFileSync(join(SUITE_DIR, 'groups', group, raw['expr-file']), 'utf8') : raw.expr!;
        const input = 'data' in raw ? raw.data : raw.dataset ? datasets.get(raw.dataset) : undefined;
        const expected = 'undefinedResult' in raw ? { ok: true as const, value: undefined } : 'result' in raw ? { ok: true as const, value: raw.result } : { ok: false as const, code: raw.error?.code ?? raw.code! };
        cases.push({ id, expr, input, bindings: raw.bindings ?? {}, timelimit: raw.timelimit, depth: raw.depth, expected });
      });
    }
  }
  return cases;
}

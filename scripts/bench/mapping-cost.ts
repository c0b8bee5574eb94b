/**
 * The cost of the response mappings alone (its own process): every list and
 * search action of the bundled definitions (./definitions) has its response
 * mapping evaluated with evaluateGuarded, as a run does, on a synthetic body
 * of N records shaped like the provider's response. Reports microseconds per
 * evaluation and per record, and the marginal cost of one more record.
 *
 * Env: BENCH_MAPPING_MS (time spent per action and N, default 400).
 */
import path from 'node:path';
import { DefinitionsLoader } from '../../engine/core/definitions/loader.ts';
import { DEFAULT_MAPPING_LIMITS, evaluateGuarded } from '../../engine/core/mapping/index.ts';
import { runChildMain } from './child-main.ts';
import { round } from './stats.ts';

const SIZES = [1, 10, 100, 1000];
const BUDGET_MS = Number(process.env.BENCH_MAPPING_MS ?? 400);

type Body = (n: number) => { body: unknown; headers?: Record<string, string> };
const iso = (i: number) => new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString();
const times = <T>(n: number, f: (i: number) => T) => Array.from({ length: n }, (_, i) => f(i + 1));
const githubIssue = (i: number) => ({
  id: 1000 + i,
  number: i,
  title: `Issue ${i}`,
  state: 'open',
  labels: [{ id: 1, name: 'bug' }, { id: 2, name: 'p1' }],
  user: { login: `user${i}`, id: i },
  html_url: `https://github.com/o/r/issues/${i}`,
  created_at: iso(i),
  updated_at: iso(i + 1),
  body: 'Lorem ipsum dolor sit amet',
  ...(i % 5 === 0 ? { pull_request: { url: 'x' } } : {}),
});
const slackUser = (i: number) => ({ id: `U${i}`, name: `u${i}`, real_name: `User ${i}`, deleted: i % 10 === 0, is_bot: i % 7 === 0, tz: 'Europe/Paris', profile: { email: `u${i}@example.com`, title: 'x' } });
const stripeCustomer = (i: number) => ({ id: `cus_${i}`, object: 'customer', email: `c${i}@example.com`, name: `Customer ${i}`, address: { country: 'FR', city: 'Paris' }, created: 1_700_000_000 + i, metadata: {} });
const link = { link: '<https://api.github.com/repos/o/r/issues?page=2>; rel="next", <https://api.github.com/repos/o/r/issues?page=9>; rel="last"' };

/** Synthetic provider responses by app/action. */
const BODIES: Record<string, Body> = {
  'github/list-issues': (n) => ({ body: times(n, githubIssue), headers: link }),
  'github/search-issues': (n) => ({ body: { total_count: n, incomplete_results: false, items: times(n, githubIssue) }, headers: link }),
  'github/list-labels': (n) => ({ body: times(n, (i) => ({ id: i, name: `label-${i}`, color: 'ff0000', description: `Label ${i}`, default: false })), headers: link }),
  'github/list-directory': (n) => ({ body: times(n, (i) => ({ name: `file${i}.ts`, path: `src/file${i}.ts`, type: 'file', size: 100 * i, sha: `sha${i}`, url: 'x' })) }),
  'hubspot/list-contacts': (n) => ({
    body: {
      results: times(n, (i) => ({ id: String(i), createdAt: iso(i), updatedAt: iso(i + 1), archived: false, properties: { email: `c${i}@example.com`, firstname: `F${i}`, lastname: `L${i}`, hs_object_id: String(i) } })),
      paging: { next: { after: String(n + 1) } },
    },
  }),
  'slack/list-users': (n) => ({ body: { ok: true, members: times(n, slackUser), response_metadata: { next_cursor: 'dXNlcjpVMDYxTkZUVDI=' } } }),
  'slack/list-channels': (n) => ({
    body: { ok: true, channels: times(n, (i) => ({ id: `C${i}`, name: `chan-${i}`, is_private: false, is_archived: false, num_members: i, topic: { value: `Topic ${i}` } })), response_metadata: { next_cursor: '' } },
  }),
  'stripe/list-customers': (n) => ({ body: { object: 'list', data: times(n, stripeCustomer), has_more: true } }),
  'stripe/search-customers': (n) => ({ body: { object: 'search_result', data: times(n, stripeCustomer), has_more: true, next_page: 'page_2' } }),
};

export interface MappingCost {
  action: string;
  /** Records actually mapped for each N (a filter such as "no pull requests" drops some). */
  sizes: { records: number; usPerCall: number; usPerRecord: number; outputRecords: number }[];
  /** (t(1000) - t(10)) / 990: what one more record costs once the fixed part is paid. */
  marginalUsPerRecord: number;
}

async function timeIt(f: () => Promise<unknown>): Promise<number> {
  // Warm up, then run for the budget; microseconds per call.
  for (let i = 0; i < 20; i++) await f();
  let calls = 0;
  const started = performance.now();
  while (performance.now() - started < BUDGET_MS) {
    await f();
    calls++;
  }
  return ((performance.now() - started) * 1000) / calls;
}

async function main(): Promise<MappingCost[]> {
  const dir = path.resolve(process.env.BENCH_MAPPING_DEFINITIONS ?? 'definitions');
  // Generous time limit: on a busy machine a 1,000-record evaluation must not be cut off by the 500 ms default.
  const loaded = await new DefinitionsLoader({ ...DEFAULT_MAPPING_LIMITS, timeoutMs: 60_000 }).loadDirectory(dir);
  if (!loaded.ok) throw new Error(`the bundled definitions do not load: ${loaded.problems.length} problems`);
  const results: MappingCost[] = [];
  for (const app of loaded.snapshot.apps.values()) {
    const version = app.published !== undefined ? app.versions.get(app.published) : app.draft;
    for (const action of version?.actions.values() ?? []) {
      if (!['list', 'search'].includes(action.operation) || !action.response) continue;
      const key = `${app.slug}/${action.slug}`;
      const make = BODIES[key];
      if (!make) {
        process.stderr.write(`mapping cost: no synthetic body for ${key}; skipped\n`);
        continue;
      }
      const sizes: MappingCost['sizes'] = [];
      for (const n of SIZES) {
        const { body, headers } = make(n);
        const input = {
          status: 200,
          headers: { 'content-type': 'application/json', ...headers },
          body,
          action: { id: action.id, slug: action.slug, operation: action.operation, query: {}, body: null },
          arguments: {},
        };
        const out = (await evaluateGuarded(action.response as never, input)) as { data?: unknown[] };
        const us = await timeIt(() => evaluateGuarded(action.response as never, input));
        sizes.push({ records: n, usPerCall: round(us, 1), usPerRecord: round(us / n, 2), outputRecords: out?.data?.length ?? 0 });
      }
      const t = (n: number) => sizes.find((s) => s.records === n)!.usPerCall;
      results.push({ action: key, sizes, marginalUsPerRecord: round((t(1000) - t(10)) / 990, 2) });
    }
  }
  return results;
}

runChildMain(main);

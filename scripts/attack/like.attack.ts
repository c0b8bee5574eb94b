/**
 * `=like=` on the longest values a list holds (issue 14, item 1): a value of
 * 199 x `a` + `c` and patterns of `*a` repeated then `b`, which a
 * backtracking regular expression tries in every way before saying no. Each
 * list that takes `where` gets its own gateway, so a request that freezes one
 * gateway does not hide the figures of the next; the most expensive pattern
 * of a list runs last on it. Every request is capped at 30 s.
 *
 *   npm run attack -- --only=like
 */
import { sendAdminCommand } from '../../engine/admin/admin-socket.ts';
import { gatewayCall, pollHealth, round, startAttackGateway, type Attack, type AttackGateway, type AttackReport } from './support.ts';

const CAP_MS = 30_000;
/** Each pattern is sent this many times; the row reports the slowest. */
const REPEATS = 5;
const LONG = `${'a'.repeat(199)}c`;
// The patterns: 5 wildcards (21-25 s before), 10 wildcards and 20 characters (the documented limits; never answered before), and one that matches.
const PATTERNS = [
  { pattern: '*a*a*a*a*b', matches: false },
  { pattern: '*A*a*A*a*a*A*a*a*a*C', matches: true },
  { pattern: '*a*a*a*a*a*a*a*a*a*b', matches: false },
];

interface ListCase {
  list: string;
  /** The route, when `list` says more than the route. */
  route?: string;
  field: string;
  /** Puts the long value in place; answers the id of the record that holds it and how long the value is. */
  seed(gw: AttackGateway): Promise<{ id: string; length: number }>;
  patterns: { pattern: string; matches: boolean }[];
}

const LISTS: ListCase[] = [
  {
    list: '/v2/connections',
    field: 'name',
    async seed(gw) {
      const made = await gatewayCall(gw, 'POST', '/v2/connections', { appSlug: 'demo-todos', name: LONG, credentials: { token: 'demo-token' } });
      if (made.status !== 201) throw new Error(`could not create the connection: ${made.status} ${made.text}`);
      return { id: made.body.data.id as string, length: LONG.length };
    },
    patterns: PATTERNS,
  },
  {
    list: '/v2/connections (1,000 long names)',
    route: '/v2/connections',
    field: 'name',
    // A busy tenant: the cost of =like= grows with the records it looks at, each at most (value length x pattern length).
    async seed(gw) {
      let id = '';
      for (let batch = 0; batch < 125; batch++) {
        const made = await Promise.all(
          Array.from({ length: 8 }, () => gatewayCall(gw, 'POST', '/v2/connections', { appSlug: 'demo-todos', name: LONG, credentials: { token: 'demo-token' } })),
        );
        const failed = made.find((m) => m.status !== 201);
        if (failed) throw new Error(`could not create the connections: ${failed.status} ${failed.text}`);
        id ||= made[0]!.body.data.id as string;
      }
      return { id, length: LONG.length };
    },
    patterns: PATTERNS,
  },
  {
    list: '/v1/companies',
    field: 'name',
    async seed(gw) {
      // Companies are made by the operator (the admin tool, here over the running gateway's socket); the key's owner joins it.
      const created = await sendAdminCommand(gw.dataDir, ['companies:create', '--name', LONG, '--json']);
      if (created.exitCode !== 0) throw new Error(`companies:create failed: ${created.output}`);
      const companyId = (JSON.parse(created.output) as { companyId: string }).companyId;
      const joined = await sendAdminCommand(gw.dataDir, ['members:add', '--company', companyId, '--email', 'owner@example.com', '--name', 'Owner', '--role', 'owner']);
      if (joined.exitCode !== 0) throw new Error(`members:add failed: ${joined.output}`);
      return { id: companyId, length: LONG.length };
    },
    patterns: PATTERNS,
  },
  {
    list: '/v2/installations',
    field: 'endUserId',
    // An installation's only free-text field is endUserId, which must name an existing end user: its values are ids (`eu_` + 24 hex digits), so this list's worst case is short.
    async seed(gw) {
      const user = await gatewayCall(gw, 'POST', '/v1/users', { name: 'A' });
      const endUserId = user.body?.data?.userId as string;
      const connection = await gatewayCall(gw, 'POST', '/v2/connections', { appSlug: 'demo-todos', credentials: { token: 'demo-token' } });
      const made = await gatewayCall(gw, 'POST', '/v2/installations', { endUserId, apps: [{ appSlug: 'demo-todos', connectionId: connection.body?.data?.id }] });
      if (made.status !== 201) throw new Error(`could not create the installation: ${made.status} ${made.text}`);
      return { id: made.body.data.id as string, length: endUserId.length };
    },
    patterns: [
      { pattern: '*e*e*e*e*e*e*e*e*e*z', matches: false },
      { pattern: 'E*_*', matches: true },
    ],
  },
];

export const attack: Attack = {
  name: 'like',
  summary: '=like= with many wildcards on the longest values of every list that takes where',
  async run(): Promise<AttackReport> {
    const rows: AttackReport['rows'] = [];
    const notes: string[] = [];
    let ok = true;
    for (const list of LISTS) {
      const gw = await startAttackGateway({ env: { LOG_LEVEL: 'error' } });
      try {
        const seeded = await list.seed(gw);
        for (const { pattern, matches } of list.patterns) {
          const health = pollHealth(gw.url);
          const where = encodeURIComponent(`${list.field}=like=${pattern}`);
          let worst: Awaited<ReturnType<typeof gatewayCall>> | undefined;
          let right = true;
          let items = 0;
          for (let i = 0; i < REPEATS; i++) {
            const answer = await gatewayCall(gw, 'GET', `${list.route ?? list.list}?where=${where}&fields=id&limit=1000`, undefined, CAP_MS);
            const ids = Array.isArray(answer.body?.data) ? (answer.body.data as { id: string }[]).map((item) => item.id) : [];
            items = ids.length;
            right &&= answer.status === 200 && (matches ? ids.includes(seeded.id) : !ids.includes(seeded.id));
            if (!worst || answer.ms > worst.ms || answer.status !== 200) worst = answer;
            if (answer.status === 0) break; // the gateway is frozen: more would only measure the same freeze
          }
          const figures = await health.stop();
          ok &&= right;
          rows.push({
            list: list.list,
            where: `${list.field}=like=${pattern}`,
            valueLength: seeded.length,
            status: worst!.status || (worst!.failure ?? 'none'),
            answer: worst!.status === 200 ? `${items} item(s)` : worst!.status ? String(worst!.body?.error?.code) : 'no answer',
            right,
            worstMs: round(worst!.ms, 0),
            healthP50Ms: figures.p50Ms,
            healthMaxMs: figures.maxMs,
            healthFailed: `${figures.failed}/${figures.polls}`,
          });
          if (worst!.status === 0) break;
        }
      } finally {
        const stopped = await gw.stop(5_000);
        if (stopped.killed) notes.push(`${list.list}: SIGTERM did not stop the gateway within 5 s (killed)`);
      }
    }
    notes.push(`each pattern sent ${REPEATS} times (the slowest reported), each request capped at ${CAP_MS / 1000} s; /health polled every 20 ms with a 2 s deadline per poll`);
    return { attack: 'like', rows, ok, notes };
  },
};

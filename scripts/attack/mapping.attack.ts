/**
 * Issue 14, item 4: a mapping or a mapper that builds a runaway string, an
 * upstream value that makes a regular expression backtrack, and eight
 * runaway mappings at once. Each case runs an action of a made-up app whose
 * upstream is a server of this script on 127.0.0.1, against a fresh gateway
 * process (one may crash it: that is reported as "crashed" and the next case
 * starts a new one). Figures: the run's time, the gateway's peak RSS
 * (VmHWM of the child), /health latency while the case ran.
 *
 * A case is right when it answers 502 MAPPING_ERROR with the expected reason
 * (a mapper's failure: 400 VALIDATION_ERROR naming the argument; the regex:
 * 200 with no match) and the gateway still serves; anything else sets
 * ok=false.
 */
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { gatewayCall, pollHealth, round, startAttackGateway, timedFetch, type Attack, type AttackGateway, type AttackReport } from './support.ts';

const DOUBLING = '( $f := function($s,$n){ $n=0 ? $s : $f($s & $s, $n-1) }; $length($uppercase($f("ab",27))) )';

interface Case {
  name: string;
  action: string;
  /** The reason the answer's MAPPING_ERROR should carry; `mapper` for a mapper's failure (400 VALIDATION_ERROR naming the argument, nothing sent); `none` for a 200. */
  reason: string;
  parallel?: number;
}

const CASES: Case[] = [
  { name: 'string doubling in a response mapping ("ab" doubled 27 times)', action: 'doubling', reason: 'size' },
  { name: 'a mapper building a 134 MB query value', action: 'mapper-bloat', reason: 'mapper' },
  { name: 'a response mapping echoing a 2^26-character string', action: 'result-bloat', reason: 'size' },
  { name: '(a+)+$ in $match on an upstream value (25 a + "!")', action: 'redos', reason: 'none' },
  { name: 'eight string doublings in parallel', action: 'doubling', reason: 'size', parallel: 8 },
];

function action(id: string, body: string): string {
  return `id: ${id}\nslug: ${id}\nname: ${id}\noperation: list\nmethod: GET\npath: /items\n${body}`;
}

function definitions(upstream: string): Record<string, string> {
  return {
    'hostile/app.yaml': 'id: hostile\nslug: hostile\nname: Hostile\ndescription: Mappings that try to take the gateway down.\npublished: 1\n',
    'hostile/versions/1/api.yaml': `baseUrl: ${upstream}\nauths:\n  - none\n`,
    'hostile/versions/1/auths/none.yaml': 'type: ApiKey\nid: none\nname: Key\nin: Header\nparameterName: X-Key\nvalue: "{{apiKey}}"\narguments:\n  - key: apiKey\n    dataType: String\n    required: true\n',
    'hostile/versions/1/actions/doubling.yaml': action('doubling', `response: |\n  { "data": [${DOUBLING}] }\n`),
    'hostile/versions/1/actions/result-bloat.yaml': action(
      'result-bloat',
      'response: |\n  ( $f := function($s,$n){ $n=0 ? $s : $f($s & $s, $n-1) }; { "data": [{ "blob": $f("ab", 25) }] } )\n',
    ),
    'hostile/versions/1/actions/mapper-bloat.yaml': action(
      'mapper-bloat',
      'arguments:\n  - key: q\n    dataType: String\n    location: Query\n    mapper: |\n      ( $f := function($s,$n){ $n=0 ? $s : $f($s & $s, $n-1) }; $f(value, 26) )\nresponse: |\n  { "data": [] }\n',
    ),
    'hostile/versions/1/actions/redos.yaml': action('redos', 'response: |\n  { "data": [{ "matched": $count($match(body.value, /(a+)+$/)) }] }\n'),
  };
}

async function startUpstream(): Promise<{ url: string; stop(): Promise<void> }> {
  // 25: about 9 s of backtracking for a backtracking engine (each further a doubles it), microseconds for a linear one
  const value = 'a'.repeat(25) + '!';
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ value }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The child's peak resident set (VmHWM), in MB; undefined once it has exited. */
async function peakRssMb(gw: AttackGateway): Promise<number | undefined> {
  try {
    const status = await fs.readFile(`/proc/${gw.process.pid}/status`, 'utf8');
    const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1]);
    return Number.isFinite(kb) ? round(kb / 1024, 0) : undefined;
  } catch {
    return undefined;
  }
}

async function connect(gw: AttackGateway): Promise<string> {
  const answer = await gatewayCall(gw, 'POST', '/v2/connections', { appSlug: 'hostile', credentials: { apiKey: 'k' } }, 10_000);
  if (answer.status !== 201 && answer.status !== 200) throw new Error(`could not make a connection: ${answer.status} ${answer.text}`);
  return answer.body.data.id as string;
}

export const attack: Attack = {
  name: 'mapping',
  summary: 'runaway strings in mappings and mappers, a backtracking regex on upstream data, eight runaways at once',
  async run(): Promise<AttackReport> {
    const upstream = await startUpstream();
    const rows: AttackReport['rows'] = [];
    const notes: string[] = [];
    let ok = true;
    let gw: AttackGateway | undefined;
    try {
      for (const c of CASES) {
        gw ??= await startAttackGateway({ definitions: definitions(upstream.url), env: { EGRESS_ALLOW: '127.0.0.1/32', MAPPING_TIMEOUT_MS: '500' } });
        const connectionId = await connect(gw);
        const health = pollHealth(gw.url);
        const t0 = performance.now();
        const answers = await Promise.all(
          Array.from({ length: c.parallel ?? 1 }, () =>
            gatewayCall(gw!, 'POST', `/v2/universal/apps/hostile/actions/${c.action}/run`, { connectionId, arguments: c.action === 'mapper-bloat' ? { q: 'ab' } : {} }, 60_000),
          ),
        );
        const ms = performance.now() - t0;
        const figures = await health.stop();
        const rss = await peakRssMb(gw);
        const running = gw.alive();
        const alive = running && (await timedFetch(`${gw.url}/health`, {}, 5000)).status === 200;
        const first = answers[0]!;
        const error = first.body?.meta?.error ?? first.body?.error;
        const right = alive && answers.every((a) => {
          const e = a.body?.meta?.error ?? a.body?.error;
          if (c.reason === 'none') return a.status === 200 && a.body?.data?.[0]?.matched === 0;
          if (c.reason === 'mapper') return a.status === 400 && e?.code === 'VALIDATION_ERROR' && /MAPPING_MAX_STRING/.test(JSON.stringify(e));
          return a.status === 502 && e?.code === 'MAPPING_ERROR' && e?.details?.reason === c.reason;
        });
        ok &&= right;
        rows.push({
          case: c.name,
          answer: alive ? `${first.status || first.failure} ${error?.code ?? ''} ${error?.details?.reason ?? ''}`.trim() : running ? 'no /health in 5 s' : 'crashed',
          right,
          ms: round(ms, 0),
          peakRssMb: rss ?? 'exited',
          healthP50Ms: figures.p50Ms,
          healthMaxMs: figures.maxMs,
          healthFailed: figures.failed,
        });
        if (!alive) {
          const tail = gw.output().split('\n').filter(Boolean).slice(-3).join(' | ');
          notes.push(`${c.name}: the gateway ${running ? 'stopped answering /health (killed and restarted)' : 'died'} (${tail.slice(0, 300)})`);
          await gw.stop(2000);
          gw = undefined;
        }
      }
    } finally {
      await gw?.stop();
      await upstream.stop();
    }
    return { attack: 'mapping', rows, ok, notes };
  },
};

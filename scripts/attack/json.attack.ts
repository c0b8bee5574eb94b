/**
 * Deeply nested JSON (issue 14, item 2). A body of ~70 bytes,
 * `{"metadata":{"d":[[[…[1]…]]]}}`, made the embedded store's key check visit
 * each array level twice (2^depth visits on the event loop), and JSON
 * 100,000 levels deep answered 500. Sends the nested-array body at depths
 * 20/22/24/26 (and 30, the deepest the limit lets through), a 100,000-deep
 * body, and the connect authorize `metadata` query parameter (JSON in a query
 * string, nested the same way), reporting each answer's time and `/health`
 * latency while it ran.
 *
 * Right answers: 200 for the end users within the depth limit (JSON_MAX_DEPTH,
 * 32 levels: depth 26 is within it), 400 VALIDATION_ERROR for the
 * 100,000-deep body, and for the authorize parameter 200 within the limit or
 * 400 VALIDATION_ERROR over it. Never a 500, never no answer.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { ROOT, gatewayCall, pollHealth, round, startAttackGateway, type Attack, type AttackReport, type TimedAnswer } from './support.ts';

/** Each request's wait: long enough to see the old code's 10 s, short enough that the script ends. */
const WAIT_MS = 30_000;

function nestedArray(depth: number): string {
  return '['.repeat(depth) + '1' + ']'.repeat(depth);
}

async function fixtureDefinitions(): Promise<Record<string, string>> {
  const dir = path.join(ROOT, 'spec/fixtures/connections');
  const files: Record<string, string> = {};
  for (const entry of await fs.readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = path.join(entry.parentPath, entry.name);
    files[path.relative(dir, full)] = await fs.readFile(full, 'utf8');
  }
  return files;
}

export const attack: Attack = {
  name: 'json',
  summary: 'nested arrays 20-26 deep in metadata, a 100,000-deep body, nested JSON in the authorize metadata parameter',
  async run(): Promise<AttackReport> {
    const gw = await startAttackGateway({ definitions: await fixtureDefinitions() });
    const rows: AttackReport['rows'] = [];
    const notes: string[] = [];
    let ok = true;
    const measure = async (name: string, bytes: number, send: () => Promise<TimedAnswer>, expect: (a: TimedAnswer) => boolean) => {
      const health = pollHealth(gw.url);
      const answer = await send();
      const figures = await health.stop();
      const right = expect(answer);
      ok &&= right;
      rows.push({
        case: name,
        bytes,
        status: answer.status || (answer.failure ?? 'none'),
        code: answer.body?.error?.code ?? '',
        ms: round(answer.ms),
        healthMaxMs: figures.maxMs,
        healthFailed: figures.failed,
        right,
      });
      if (!right) notes.push(`${name}: unexpected answer ${answer.status} ${answer.text.slice(0, 200)}`);
    };
    try {
      for (const depth of [20, 22, 24, 26, 30]) {
        const body = `{"metadata":{"d":${nestedArray(depth)}}}`;
        await measure(`POST /v1/users, metadata arrays ${depth} deep`, body.length, () => gatewayCall(gw, 'POST', '/v1/users', body, WAIT_MS), (a) => a.status === 200);
      }
      const deep = `{"metadata":{"d":${nestedArray(100_000)}}}`;
      await measure('POST /v1/users, 100,000 levels', deep.length, () => gatewayCall(gw, 'POST', '/v1/users', deep, WAIT_MS), (a) => a.status === 400 && a.body?.error?.code === 'VALIDATION_ERROR');
      // The deepest body the 1 MiB limit lets through: what JSON.parse costs before the depth check can run.
      const deepest = `{"metadata":{"d":${nestedArray(524_000)}}}`;
      await measure('POST /v1/users, 1 MiB of nested arrays (524,000 levels)', deepest.length, () => gatewayCall(gw, 'POST', '/v1/users', deepest, WAIT_MS), (a) => a.status === 400 && a.body?.error?.code === 'VALIDATION_ERROR');

      const configured = await gatewayCall(gw, 'PUT', '/v2/apps/oauthy/configuration', { clientId: 'client-1', clientSecret: 'secret-1' });
      if (configured.status !== 200) notes.push(`configuring oauthy answered ${configured.status}: ${configured.text.slice(0, 200)}`);
      // A returnUrl must be on one of the company's allowed origins (PUT /v2/embedding), or the authorize step refuses it before reading metadata.
      const allowed = await gatewayCall(gw, 'PUT', '/v2/embedding', { allowedOrigins: ['https://app.example.test'], enabledApps: [] });
      if (allowed.status !== 200) notes.push(`allowing the return URL's origin answered ${allowed.status}: ${allowed.text.slice(0, 200)}`);
      for (const depth of [24, 26, 1000]) {
        const metadata = `{"d":${nestedArray(depth)}}`;
        const route = `/v2/connect/oauthy/authorize?returnUrl=${encodeURIComponent('https://app.example.test/back')}&metadata=${encodeURIComponent(metadata)}`;
        // 1,000 levels fit a request line (100,000 cannot: Node answers 431 before the gateway sees it).
        await measure(`authorize metadata parameter, arrays ${depth} deep`, route.length, () => gatewayCall(gw, 'GET', route, undefined, WAIT_MS), (a) =>
          depth <= 30 ? a.status === 200 : a.status === 400 && a.body?.error?.code === 'VALIDATION_ERROR',
        );
      }
      if (!gw.alive()) {
        ok = false;
        notes.push('the gateway died');
      }
    } finally {
      const stopped = await gw.stop();
      notes.push(`SIGTERM ended the gateway in ${stopped.termMs} ms${stopped.killed ? ' (it had to be killed)' : ''}`);
    }
    return { attack: 'json', rows, ok, notes };
  },
};

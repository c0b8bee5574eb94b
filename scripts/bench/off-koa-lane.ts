/**
 * A measuring device, not a feature: the universal run served straight from
 * node:http, without Koa's context and the gateway's middleware chain, for
 * `npm run bench -- --off-koa` to measure beside the real gateway. It bounds
 * what moving the run routes off Koa could save (issue 31's cost per request):
 * it keeps what a run must do (API key, body, validation, connection, run,
 * envelope bytes, request line) and drops what the chain does besides (the
 * error envelope, metrics, traces, CORS, content codings, body limits,
 * closing a connection whose body was not read). So it costs less than any
 * real implementation of it would; a request it does not take (another path,
 * a key not yet admitted, an Origin header, a query string) goes to Koa.
 */
import type http from 'node:http';
import { randomUUID } from 'node:crypto';
import type { RunningGateway } from '../../engine/gateway.ts';
import { resolveAction, resolveAppVersion } from '../../engine/core/definitions/index.ts';
import { recentActiveApiKey } from '../../engine/tenancy/api-keys/api-keys.ts';
import { sendEnvelopeParts, validateUniversal } from '../../engine/http/runs/routes.ts';
import { selectConnection } from '../../engine/core/run/select-connection.ts';
import { runAction } from '../../engine/core/run/run-action.ts';
import { envelopeOutcome, runFactsOf } from '../../engine/core/run/run-facts.ts';
import { envelopeParts } from '../../engine/core/run/envelope-json.ts';
import { CallStop } from '../../engine/platform/outbound/index.ts';
import { directStream, requestLine } from '../../engine/http/server/middleware/request-line.ts';
import { requestLineLogger } from '../../engine/http/server/middleware/request-log.ts';

const PREFIX = '/v2/universal/apps/';
const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Puts the lane in front of the gateway's Koa listener (Koa's callback, named handleRequest), in its place among the
 * server's 'request' listeners: the shutdown one before it and the client-errors one after it stay as they are.
 */
export function serveRunsOffKoa(gateway: RunningGateway): void {
  const { server, services } = gateway;
  const listeners = server.listeners('request') as http.RequestListener[];
  const koas = listeners.filter((listener) => listener.name === 'handleRequest');
  if (koas.length !== 1) throw new Error(`the off-Koa lane looks for one Koa callback among the server's request listeners, found ${koas.length}`);
  const koa = koas[0]!;
  const lines = requestLineLogger(services.logger);
  const stream = lines.isLevelEnabled('info') ? directStream(lines) : null;
  const lane = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const taken = take(req);
    if (taken === null) return void koa(req, res);
    serve(req, res, taken).catch((error: unknown) => {
      // The bench's runs do not fail; if one does, say so plainly rather than hang the caller.
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': JSON_TYPE });
      res.end(JSON.stringify({ success: false, error: { code: 'OFF_KOA_LANE', message: String(error) } }));
    });
  };
  server.removeAllListeners('request');
  for (const listener of listeners) server.on('request', listener === koa ? lane : listener);

  function take(req: http.IncomingMessage): { app: string; action: string; companyId: string } | null {
    if (req.method !== 'POST' || req.headers.origin !== undefined) return null;
    const url = req.url!;
    if (!url.startsWith(PREFIX) || url.includes('?')) return null;
    const parts = url.split('/');
    if (parts.length !== 8 || parts[5] !== 'actions' || parts[7] !== 'run') return null;
    const auth = req.headers.authorization;
    const key = auth?.startsWith('Bearer ') ? recentActiveApiKey(services.store, auth.slice(7)) : undefined;
    return key ? { app: parts[4]!, action: parts[6]!, companyId: key.companyId } : null;
  }

  async function serve(req: http.IncomingMessage, res: http.ServerResponse, taken: { app: string; action: string; companyId: string }): Promise<void> {
    const started = process.hrtime.bigint();
    const requestId = randomUUID();
    res.setHeader('X-Request-Id', requestId);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = validateUniversal(JSON.parse(Buffer.concat(chunks).toString('utf8')));
    const version = resolveAppVersion(services.definitions.current(), { slug: taken.app }, 'published');
    const action = resolveAction(version, { slug: taken.action });
    const selected = await selectConnection(services, taken.companyId, version, body);
    const facts = runFactsOf({ companyId: taken.companyId, version, action, connection: selected.connection });
    const outcome = await runAction(services.run, {
      companyId: taken.companyId,
      version,
      action,
      connection: selected.connection,
      installation: selected.installation,
      endUser: selected.endUser,
      arguments: body.arguments ?? {},
      signal: new CallStop(),
      facts,
    });
    facts.outcome = envelopeOutcome(outcome.status, outcome.envelope.success);
    facts.retries = outcome.envelope.meta.retries;
    sendEnvelopeParts(res, outcome.status, envelopeParts(outcome.envelope));
    const durationMs = Math.round(Number(process.hrtime.bigint() - started) / 1e4) / 100;
    stream?.write(requestLine({ reqId: requestId, method: 'POST', path: req.url!, status: outcome.status, durationMs, run: facts }, Date.now()));
  }
}

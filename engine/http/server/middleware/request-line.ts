import { pino, type Logger } from 'pino';
import type { RunFacts } from '../../../core/run/run-facts.ts';

/** What one request line says: the request, and for a run its story (ids and counts only). */
export interface RequestLineFields {
  reqId: string;
  method: string;
  path: string;
  status: number;
  durationMs: number;
  run: RunFacts | undefined;
}

/** Where `logger` writes, when a line can be handed to it as it is (not a multistream, which wants pino's metadata with each line). */
export function directStream(logger: Logger): { write(line: string): unknown } | null {
  const stream = (logger as unknown as Record<symbol, { write(line: string): unknown; [key: symbol]: unknown }>)[pino.symbols.streamSym];
  if (!stream || typeof stream.write !== 'function' || stream[Symbol.for('pino.metadata')] === true) return null;
  return stream;
}

/**
 * The request line exactly as pino writes `logger.info({ reqId, method, ... }, 'request')`
 * for the gateway's logger (level 30, ISO time, no pid or hostname, the
 * fields in this order, an undefined one left out, `msg` last), written
 * out here: every field is named and of a known type, so pino's generic
 * serialisation (a loop over the keys with a switch on each value's type)
 * is not needed. spec/http/server/request-line.spec.ts holds it to pino's.
 */
export function requestLine(f: RequestLineFields, now: number): string {
  let line = `{"level":30,"time":"${new Date(now).toISOString()}","reqId":${str(f.reqId)},"method":${str(f.method)},"path":${str(f.path)},"status":${num(f.status)},"durationMs":${num(f.durationMs)}`;
  const run = f.run;
  if (run) {
    line += `,"companyId":${str(run.companyId)},"app":${str(run.app)},"action":${str(run.action)},"version":${str(run.version)},"connectionId":${str(run.connectionId)}`;
    if (run.upstreamStatus !== undefined) line += `,"upstreamStatus":${num(run.upstreamStatus)}`;
    if (run.upstreamMs !== undefined) line += `,"upstreamMs":${num(run.upstreamMs)}`;
    line += `,"retries":${num(run.retries)}`;
    if (run.outcome !== undefined) line += `,"outcome":${str(run.outcome)}`;
  }
  return `${line},"msg":"request"}\n`;
}

/** A string as JSON: most are ids and slugs with nothing to escape. */
function str(value: string): string {
  return PLAIN.test(value) ? `"${value}"` : JSON.stringify(value);
}

const PLAIN = /^[\w.:/~@+-]*$/;

function num(value: number): string {
  return Number.isFinite(value) ? String(value) : 'null';
}

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
  let line = `{"level":30,"time":"${isoTime(now)}","reqId":${str(f.reqId)},"method":${str(f.method)},"path":${str(f.path)},"status":${num(f.status)},"durationMs":${num(f.durationMs)}`;
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

/**
 * A number as JSON (`String(value)`, null when not finite). The durations are
 * doubles in hundredths of a millisecond (12.34): String() of a double is a
 * runtime call (a shortest round-trip search) that cost about as much as the
 * rest of the line; a value that is exactly hundredths is written from its
 * integer parts, which gives the same digits (at these magnitudes no shorter
 * decimal rounds to the same double). The spec holds it to String().
 */
export function num(value: number): string {
  if (!Number.isFinite(value)) return 'null';
  if (Number.isInteger(value) || Math.abs(value) >= HUNDREDTHS_UP_TO) return String(value);
  const hundredths = Math.round(value * 100);
  if (hundredths / 100 !== value) return String(value);
  const sign = hundredths < 0 ? '-' : '';
  const abs = Math.abs(hundredths);
  const whole = Math.floor(abs / 100);
  const fraction = abs % 100;
  return `${sign}${whole}.${fraction % 10 === 0 ? fraction / 10 : fraction < 10 ? `0${fraction}` : fraction}`;
}

/** Up to here (2^31 hundredths) a value's hundredths are exact small integers. */
const HUNDREDTHS_UP_TO = 2 ** 31 / 100;

/** The ISO time of the last second a line was written in, up to its dot ("2026-11-29T03:04:05."). */
let secondStart = Number.NaN;
let secondPrefix = '';

/**
 * `new Date(now).toISOString()`, with the date and time up to the second
 * worked out once a second (a busy gateway writes thousands of lines in it)
 * and the milliseconds appended. Times outside years 0-9999 (which
 * toISOString writes with a sign and six digits) go through toISOString.
 */
export function isoTime(now: number): string {
  const ms = now - secondStart;
  if (ms >= 0 && ms < 1000 && (ms | 0) === ms) return `${secondPrefix}${ms < 10 ? '00' : ms < 100 ? '0' : ''}${ms}Z`;
  const iso = new Date(now).toISOString();
  if (iso.length !== 24 || !Number.isInteger(now)) return iso;
  secondStart = now - (((now % 1000) + 1000) % 1000);
  secondPrefix = iso.slice(0, 20);
  return iso;
}

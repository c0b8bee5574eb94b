import type { Envelope } from '../../core/run/envelope.ts';
import { problemsNotListed, type FieldProblem, type GatewayError } from '../../platform/errors/index.ts';
import { cutText } from '../../platform/cut-text.ts';

/** A tools/call result as the MCP specification shapes it. */
export interface ToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent: Record<string, unknown>;
  isError: boolean;
}

/**
 * A run's envelope as a tool result: `data` and `meta.cursor` (the next
 * page's cursor, when there is one) as structuredContent, with `appError`
 * when the app call failed; the same as JSON text, capped at `maxChars`
 * (rows past the cap are left out of the text, which says so and where the
 * rest is). A failure of the app (its error, a rate limit, an answer that
 * could not be mapped) is a result with isError: true whose text leads with
 * what went wrong, never a protocol error.
 */
export function envelopeResult(status: number, envelope: Envelope, maxChars: number): ToolResult {
  const { data, meta } = envelope;
  const structured: Record<string, unknown> = { data, meta: meta.cursor === undefined ? {} : { cursor: meta.cursor } };
  if (meta.appError) structured.appError = meta.appError;
  if (meta.error) structured.error = { code: meta.error.code, message: meta.error.message };
  // What went wrong takes at most half the text (a mapping's error can quote an app's value whole), the rows the rest.
  const failureAll = failureText(status, envelope);
  const failure = failureAll === null ? null : capped(failureAll, Math.floor(maxChars / 2));
  const body = rowsText(data, meta.cursor, maxChars - (failure ? failure.length + 2 : 0));
  return { content: [{ type: 'text', text: failure ? `${failure}\n\n${body}` : body }], structuredContent: structured, isError: !envelope.success };
}

/**
 * A refusal of the run (bad arguments, a connection to authorize again, an app unreachable...) as a tool
 * result the agent can act on; its text, and the message in structuredContent, capped at `maxChars`.
 */
export function errorResult(error: GatewayError, maxChars: number): ToolResult {
  const problems = (error.details as { problems?: FieldProblem[] } | undefined)?.problems;
  let text: string;
  if (error.code === 'VALIDATION_ERROR' && problems?.length) {
    // The problems past those listed are counted on a last line, which a cut of the list leaves in place.
    const more = problemsNotListed(error);
    const count = more ? `\n- and ${more} more problems (the first ${problems.length} are listed)` : '';
    const list = `The arguments need fixing (nothing was sent to the app):\n${problems.map((p) => `- ${p.field}: ${p.message} (rule: ${p.rule})`).join('\n')}`;
    text = count.length < maxChars / 2 ? capped(list, maxChars - count.length) + count : capped(list + count, maxChars);
  } else {
    text = capped(`${error.code}: ${error.message}`, maxChars);
  }
  const structured = { error: { code: error.code, message: capped(error.message, maxChars), ...(problems ? { problems } : {}) } };
  return { content: [{ type: 'text', text }], structuredContent: structured, isError: true };
}

/** The result of a call the client cancelled (or went away from) while it ran: the run was stopped; no one is left to read it. */
export function cancelledResult(): ToolResult {
  return { content: [{ type: 'text', text: 'The call was cancelled by the client; the run was stopped.' }], structuredContent: { cancelled: true }, isError: true };
}

/** `text` whole when it fits in `room` characters; otherwise its beginning, and how long it was. */
function capped(text: string, room: number): string {
  if (text.length <= room) return text;
  const tail = `... [cut: ${text.length} characters in all]`;
  return `${cutText(text, room - tail.length)}${tail}`;
}

function failureText(status: number, envelope: Envelope): string | null {
  if (envelope.success) return null;
  const { appError, error, retries } = envelope.meta;
  if (error) return `The gateway could not read the app's answer (${error.code}): ${error.message}`;
  const said = appError ? `${appError.code}: ${appError.message} (HTTP ${appError.status})` : `HTTP ${envelope.meta.response.status}`;
  if (status === 429) return `The app is rate limiting these calls (given up after ${retries} ${retries === 1 ? 'retry' : 'retries'}); try again later. It said ${said}`;
  return `The app answered with an error: ${said}`;
}

/**
 * `{"data":[...],"meta":{...}}` when it fits in `room` characters. When it
 * does not: `{"data":[...]}` with as many whole rows as fit, and a last line
 * saying how many are shown, that structuredContent holds them all, and the
 * next page's cursor: quoted there once (not in a meta beside it too), when
 * it leaves the rows half the room; a longer one is named by its length and
 * where it is (structuredContent.meta.cursor), so the text keeps to `room`
 * whatever the app's cursor is.
 */
function rowsText(data: unknown[], cursor: string | undefined, room: number): string {
  const meta = JSON.stringify(cursor === undefined ? {} : { cursor });
  const whole = `{"data":${JSON.stringify(data)},"meta":${meta}}`;
  if (whole.length <= room) return whole;
  const next = nextPage(cursor, room);
  const note = (shown: number) => `\n[${shown} of ${data.length} rows shown: the text is capped at ${room} characters. structuredContent holds all ${data.length}; ask for fewer rows (a smaller page) to read them as text. ${next}]`;
  const rows: string[] = [];
  let used = '{"data":[]}'.length + note(data.length).length;
  for (const row of data) {
    const text = JSON.stringify(row) ?? 'null';
    if (used + text.length + 1 > room) break;
    rows.push(text);
    used += text.length + 1;
  }
  if (rows.length === 0 && data.length > 0) {
    // Not even the first row fits: its beginning, marked as cut (none at all when the note takes the room).
    const first = JSON.stringify(data[0]) ?? 'null';
    const cut = '... (row 1 cut)';
    const keep = room - note(0).length - cut.length;
    return keep > 0 ? `${cutText(first, keep)}${cut}${note(0)}` : note(0).slice(1);
  }
  return `{"data":[${rows.join(',')}]}${note(rows.length)}`;
}

/** Where the next page is, for a text of `room` characters: the cursor quoted when it takes at most half of it. */
function nextPage(cursor: string | undefined, room: number): string {
  if (cursor === undefined) return 'This is the last page.';
  const quoted = JSON.stringify(cursor);
  if (quoted.length <= room / 2) return `The next page: call again with cursor ${quoted}.`;
  return `The next page's cursor is ${cursor.length} characters, too long for this text: send structuredContent.meta.cursor back as the cursor argument.`;
}

import type { Keyring } from '../platform/crypto/keyring.ts';
import { decodeCursor, encodeCursor, type CursorScope, type PagePosition } from '../core/pagination/index.ts';
import type { RunOutcome } from '../core/run/run-action.ts';

/**
 * The engine's own cursors (NextUrl, Offset, Page) are signed for one action
 * and connection, so a case writes them decoded: `cursor: { url: ... }`,
 * `{ offset: 20 }` or `{ page: 3 }`. In `arguments` such a cursor is encoded
 * for the case's action and connection; in `expect.meta` the run's cursor is
 * decoded to be compared with it. An app's own token (Cursor) stays a string.
 */
export function encodedArguments(args: Record<string, unknown>, keyring: Keyring, scope: CursorScope): Record<string, unknown> {
  const position = positionOf(args.cursor);
  return position ? { ...args, cursor: encodeCursor(keyring, scope, position) } : args;
}

/** The outcome with meta.cursor decoded, when the case expects a decoded cursor; as it is otherwise. */
export function decodedOutcome(expectedMeta: Record<string, unknown> | undefined, outcome: RunOutcome, keyring: Keyring, scope: CursorScope): RunOutcome {
  const cursor = outcome.envelope.meta.cursor;
  if (!positionOf(expectedMeta?.cursor) || typeof cursor !== 'string') return outcome;
  const decoded = decodeCursor(keyring, scope, cursor);
  const shown = 'position' in decoded ? decoded.position : `${cursor} (refused: ${decoded.refused})`;
  return { ...outcome, envelope: { ...outcome.envelope, meta: { ...outcome.envelope.meta, cursor: shown as never } } };
}

function positionOf(value: unknown): PagePosition | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const { url, offset, page } = value as Record<string, unknown>;
  if (typeof url === 'string') return { url };
  if (typeof offset === 'number') return { offset };
  if (typeof page === 'number') return { page };
  return undefined;
}

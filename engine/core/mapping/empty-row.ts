/**
 * A row a failure's envelope leaves out of its `data` (envelope.ts): an object
 * without members, what a mapping gives for an app's error body it has no
 * fields from. A mapping worker tells whether its rows hold one
 * (workers/mapping-worker.ts), so that the envelope's rule need not parse rows
 * it would keep as they are.
 */
export function isEmptyRow(row: unknown): boolean {
  return row !== null && typeof row === 'object' && !Array.isArray(row) && Object.keys(row).length === 0;
}

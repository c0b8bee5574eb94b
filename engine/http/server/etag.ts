/**
 * Whether a request's If-None-Match names this ETag (RFC 9110 13.1.2: a list of
 * entity tags, compared weakly, or `*`). Split on commas and trimmed: linear
 * in the header's length whatever a caller sends: a regex splitting on spaces
 * around a comma backtracks quadratically over a run of spaces without one
 * (120 ms of the event loop for a 15 KB header).
 */
export function etagMatches(ifNoneMatch: string, etag: string): boolean {
  if (ifNoneMatch === '') return false;
  const opaque = weakless(etag);
  for (const part of ifNoneMatch.split(',')) {
    const tag = part.trim();
    if (tag === '*' || weakless(tag) === opaque) return true;
  }
  return false;
}

function weakless(tag: string): string {
  return tag.startsWith('W/') ? tag.slice(2) : tag;
}

/** One link of a Link header (RFC 8288): its target as written, and its parameters (names lower-case). */
export interface Link {
  target: string;
  params: Record<string, string>;
}

/**
 * Parses a Link header: `<url>; rel="next", <url>; rel="last"`. Targets are
 * read up to their `>`, so commas and semicolons inside `<...>` are kept;
 * parameter values may be quoted (with backslash escapes) or bare tokens; a
 * malformed link is skipped, never thrown.
 */
export function parseLinkHeader(header: string): Link[] {
  const links: Link[] = [];
  let i = 0;
  const n = header.length;
  const skipSpace = () => {
    while (i < n && (header[i] === ' ' || header[i] === '\t')) i++;
  };
  while (i < n) {
    skipSpace();
    if (header[i] === ',') {
      i++;
      continue;
    }
    if (header[i] !== '<') {
      // Not a link: skip to the next comma outside quotes.
      skipToNextLink();
      continue;
    }
    const end = header.indexOf('>', i + 1);
    if (end < 0) break;
    const target = header.slice(i + 1, end).trim();
    i = end + 1;
    const params: Record<string, string> = {};
    for (;;) {
      skipSpace();
      if (header[i] !== ';') break;
      i++;
      skipSpace();
      const nameStart = i;
      while (i < n && !'=;, \t'.includes(header[i]!)) i++;
      const name = header.slice(nameStart, i).toLowerCase();
      skipSpace();
      let value = '';
      if (header[i] === '=') {
        i++;
        skipSpace();
        if (header[i] === '"') {
          i++;
          while (i < n && header[i] !== '"') {
            if (header[i] === '\\' && i + 1 < n) i++;
            value += header[i];
            i++;
          }
          i++;
        } else {
          const valueStart = i;
          while (i < n && !';,'.includes(header[i]!)) i++;
          value = header.slice(valueStart, i).trim();
        }
      }
      // The first occurrence of a parameter counts (RFC 8288, 3).
      if (name && !(name in params)) params[name] = value;
    }
    links.push({ target, params });
    skipSpace();
    if (i < n && header[i] !== ',') skipToNextLink();
  }
  return links;

  function skipToNextLink(): void {
    let quoted = false;
    while (i < n) {
      const c = header[i]!;
      if (c === '"') quoted = !quoted;
      else if (c === '\\' && quoted) i++;
      else if (c === ',' && !quoted) break;
      i++;
    }
  }
}

/** The target of the first link whose rel (a space-separated list, case-insensitive) includes `rel`. */
export function linkWithRel(header: string | undefined, rel: string): string | undefined {
  if (!header) return undefined;
  const wanted = rel.toLowerCase();
  return parseLinkHeader(header).find((link) => (link.params.rel ?? '').toLowerCase().split(/\s+/).includes(wanted))?.target;
}

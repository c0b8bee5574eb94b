/**
 * Names in the definitions' forms, from the names a description uses:
 * camelCase argument keys (`per_page` → `perPage`), kebab-case ids
 * (`chat_postMessage` → `chat-post-message`), display names and texts within
 * the schemas' lengths.
 */

/**
 * The words of a name: `AccountSid` → Account Sid, `userID` → user ID,
 * `created[gte]` → created gte, `X-Request-Id` → X Request Id. Digits stay
 * with the word they end (`oauth2`, `v2`, `int32`), and OAuth is one word.
 */
export function words(name: string): string[] {
  return name.match(/OAuth[0-9]*|[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+[0-9]*|[A-Z]+[0-9]*|[0-9]+/g) ?? [];
}

/** An argument key (`^[a-z][a-zA-Z0-9]*$`): `per_page` → perPage, `AccountSid` → accountSid, `$filter` → filter. */
export function camelKey(name: string): string {
  const parts = words(name).map((w) => w.toLowerCase());
  if (!parts.length) return 'value';
  const key = parts.map((w, i) => (i === 0 ? w : w[0]!.toUpperCase() + w.slice(1))).join('');
  return /^[a-z]/.test(key) ? key : `n${key[0]!.toUpperCase()}${key.slice(1)}`;
}

/** An id or slug (`^[a-z0-9]+(-[a-z0-9]+)*$`, at most 100): `chat_postMessage` → chat-post-message. */
export function kebabId(name: string, max = 100): string {
  const id = words(name)
    .map((w) => w.toLowerCase())
    .join('-');
  if (id.length <= max) return id;
  // Cut at a word, so the id still reads.
  const cut = id.slice(0, max + 1);
  return cut.slice(0, cut.lastIndexOf('-') > 0 ? cut.lastIndexOf('-') : max);
}

/** A display name (at most 200 characters, one line, no closing period). */
export function displayName(text: string): string {
  const line = plain(text).replace(/\s+/g, ' ').trim().replace(/\.$/, '');
  return clip(line, 200);
}

/** Words written one way in any product's docs. */
const SPELLED: Record<string, string> = { api: 'API', oauth: 'OAuth', oauth2: 'OAuth2', url: 'URL', uri: 'URI', id: 'ID', http: 'HTTP', json: 'JSON' };

/** `listUsers` → List users, `chat_postMessage` → Chat post message, `api_key` → API key. */
export function humanised(name: string): string {
  const parts = words(name).map((w, i) => SPELLED[w.toLowerCase()] ?? (i === 0 ? w[0]!.toUpperCase() + w.slice(1) : /^[A-Z0-9]+$/.test(w) && w.length > 1 ? w : w.toLowerCase()));
  return parts.join(' ');
}

/**
 * A description for a definition (at most `max` characters): HTML tags
 * removed, blank lines collapsed, and a long one cut at the last sentence
 * that fits, marked with an ellipsis.
 */
export function documentation(text: string, max = 5000): string | undefined {
  const cleaned = plain(text)
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  if (!cleaned) return undefined;
  if (cleaned.length <= max) return cleaned;
  const room = cleaned.slice(0, max - 1);
  const end = Math.max(room.lastIndexOf('. '), room.lastIndexOf('.\n'));
  return `${end > max / 2 ? room.slice(0, end + 1) : room.trimEnd()}…`;
}

/** The first paragraph of a description, one line: what a summary would have said. */
export function firstParagraph(text: string): string {
  return (plain(text).trim().split(/\n\s*\n/)[0] ?? '').replace(/\s+/g, ' ').trim();
}

/** Without HTML tags and the control characters YAML cannot hold as they are. */
function plain(text: string): string {
  return text
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/?(p|div|ul|ol|li|h[1-6])\b[^>]*>/gi, '\n')
    .replace(/<[^>]{1,200}>/g, '')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\r\n?/g, '\n')
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, '');
}

function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const room = text.slice(0, max - 1);
  const space = room.lastIndexOf(' ');
  return `${space > max / 2 ? room.slice(0, space) : room}…`;
}

/** `name` if free, else `name` with the first of 2, 3, ... that is; `taken` gets the one returned. */
export function unique(name: string, taken: Set<string>, join: (base: string, n: number) => string = (base, n) => `${base}${n}`): string {
  let candidate = name;
  for (let n = 2; taken.has(candidate); n++) candidate = join(name, n);
  taken.add(candidate);
  return candidate;
}

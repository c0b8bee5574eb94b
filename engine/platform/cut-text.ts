/**
 * The first `length` UTF-16 units of `text` (none when `length` is not positive), one fewer when the cut would fall
 * inside a surrogate pair: a text cut for a message or a result stays well-formed Unicode (half an emoji is a lone surrogate,
 * which the gateway itself refuses in a request, and which a client re-encoding the text as UTF-8 may fail on).
 */
export function cutText(text: string, length: number): string {
  if (length <= 0) return '';
  if (length >= text.length) return text;
  const last = text.charCodeAt(length - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? length - 1 : length);
}

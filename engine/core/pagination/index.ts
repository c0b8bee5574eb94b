export { applyCursor } from './page-request.ts';
export { setNextCursor } from './next-cursor.ts';
export { decodeCursor, encodeCursor, MAX_CURSOR_CHARS, type CursorScope, type PagePosition } from './cursor-codec.ts';
export { linkWithRel, parseLinkHeader, type Link } from './link-header.ts';
export type { PageFacts } from './page-facts.ts';

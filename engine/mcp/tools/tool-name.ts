import { hash } from 'node:crypto';

/**
 * The longest tool name the gateway gives. The MCP specification allows 128
 * characters (A-Z a-z 0-9 _ - .); the model APIs agents pass tools on to
 * accept 64 of [A-Za-z0-9_-], so a name fits both.
 */
export const TOOL_NAME_MAX = 64;
/** What a shortened name keeps of the full one before `_` and the hash. */
const KEPT = TOOL_NAME_MAX - 9;

/**
 * `<app>_<action>` from the two slugs: kebab-case (a-z, 0-9, single
 * hyphens), so the one underscore separates them without ambiguity and every
 * character is one the specification and the model APIs allow. A name
 * longer than TOOL_NAME_MAX keeps its first characters and ends in `_` and 8
 * hex digits of the SHA-256 of the full name: the same slugs give the same
 * name on every gateway, and two long names that start alike still differ.
 *
 *   toolName('github', 'list-issues')  ->  'github_list-issues'
 */
export function toolName(appSlug: string, actionSlug: string): string {
  const full = `${appSlug}_${actionSlug}`;
  if (full.length <= TOOL_NAME_MAX) return full;
  return `${full.slice(0, KEPT)}_${hash('sha256', full, 'hex').slice(0, 8)}`;
}

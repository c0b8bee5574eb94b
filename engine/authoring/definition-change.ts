/**
 * One semantic change between two definitions folders, as a reviewer reads it.
 *
 * - breaking: a client, workflow or stored connection that worked before can
 *   fail now (an action or argument gone, a type, location or external key
 *   changed, an argument newly required, a list option removed, ...);
 * - noted: nothing a client sends stops working, but what the app receives or
 *   returns changes (a hidden default, a response mapping, a path): compatible,
 *   yet worth a reviewer's look;
 * - compatible: additions and wording.
 */
export type Severity = 'breaking' | 'noted' | 'compatible';

export const SEVERITIES: readonly Severity[] = ['breaking', 'noted', 'compatible'];

export type ChangeSubject = 'app' | 'published' | 'version' | 'api' | 'auth' | 'action' | 'argument' | 'list-option';

export interface DefinitionChange {
  /** The app id. */
  app: string;
  /** `1`, `2`, ... or `draft`; null for changes to the app itself (its published pointer, its slug). */
  version: string | null;
  /**
   * Set when the change is between two different versions, `from` (old) and
   * `version` (new), rather than one version on both sides: a diff of
   * `<app>@1` with `<app>@2`, or the published pointer moving.
   */
  from?: string;
  /** Set when `from` → `version` is the published pointer moving between the sides: what clients of `published` now get. */
  publishedMove?: true;
  /**
   * Whether the change reaches released definitions: a numbered version, or the
   * app itself. Breaking changes only in `draft` never fail a review.
   */
  released: boolean;
  subject: ChangeSubject;
  /** Where, readably: `action list-issues`, `action list-issues, argument state`, `auth oauth2`. */
  where: string;
  change: 'added' | 'removed' | 'changed';
  severity: Severity;
  /** What changed, in a sentence fragment: `dataType String → Number`, `removed`. */
  what: string;
}

/** How a value is shown in a change: short JSON, strings as they read. */
export function shown(value: unknown): string {
  if (value === undefined) return '(none)';
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const oneLine = text.replace(/\s*\n\s*/g, ' ');
  return oneLine.length > 60 ? `${oneLine.slice(0, 57)}...` : oneLine;
}

/** Deep equality for plain JSON-like definition values. */
export function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

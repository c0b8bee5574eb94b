import { validationError } from '../../platform/errors/index.ts';

/**
 * `?version=published|draft|<n>` (published when absent; empty is 400). The value is
 * resolved by the registry, which answers APP_VERSION_NOT_FOUND naming the
 * versions that exist; here only its shape is checked.
 */
export function versionFrom(query: Record<string, string | string[] | undefined>): { version: string; suffix: string } {
  const raw = query.version;
  if (Array.isArray(raw)) throw validationError([{ field: 'version', rule: 'single', message: 'give version once: published, draft or a version number' }]);
  // Empty is refused like any other empty parameter: a form that sent no choice did not choose published.
  if (raw === '') throw validationError([{ field: 'version', rule: 'minLength', message: 'must be published, draft or a version number, not empty' }]);
  if (raw === undefined || raw === 'published') return { version: 'published', suffix: '' };
  return { version: raw, suffix: `?version=${encodeURIComponent(raw)}` };
}

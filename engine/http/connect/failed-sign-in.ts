import type { Logger } from '../../platform/log/logger.ts';

/** The error an end user's own "no" at the provider comes back with: their choice, not a fault. */
const END_USER_CHOICES = new Set(['access_denied', 'oauth_state_invalid']);

/**
 * A sign-in that goes back to its return URL without a connection. The end user reads a sentence on the Connect
 * page chosen by `error` alone (never these words); the developer reads them here: which app, company and end
 * user, the error and its description (the provider's words or the gateway's, secrets already taken out). A
 * warning, except for what an end user does themselves (refusing consent, reloading a finished sign-in): info.
 */
export function logFailedSignIn(logger: Logger, who: { companyId: string; appSlug?: string; endUserId?: string | null }, error: string, description: string): void {
  const level = END_USER_CHOICES.has(error) ? 'info' : 'warn';
  logger[level](
    { event: 'oauth.signin.failed', companyId: who.companyId, app: who.appSlug ?? null, endUserId: who.endUserId ?? null, error, description },
    `OAuth sign-in to ${who.appSlug ?? 'an app'} failed: ${error}: ${description}`,
  );
}

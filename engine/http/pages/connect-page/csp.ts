import { parseOrigin } from '../../../tenancy/embedding/origins.ts';
import type { Store } from '../../../platform/store/index.ts';

/**
 * The Connect page's Content-Security-Policy: its own origin only, no inline script or style, no eval, no
 * plugins, no form posting elsewhere. `frameAncestors` is `'none'` or the one origin that may frame it.
 *
 * `logo`: the page itself (GET /connect) also takes images from any https origin, for the company's logo
 * (PUT /v2/embedding theme.logoUrl). The page is served before its token says which company it is for, so no
 * narrower list could name that company's host (and a list of every company's hosts would tell anyone who the
 * gateway's customers are). What it opens: an image request from the end user's browser to the logo's host
 * (the page's script sends it only to the https URL the company set, without a Referer). Scripts, styles and
 * fetches stay same-origin only, so nothing the page holds (the end-user token) can reach another origin.
 */
export function connectPageCsp(frameAncestors: string, { logo = false }: { logo?: boolean } = {}): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    logo ? "img-src 'self' https:" : "img-src 'self'",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    `frame-ancestors ${frameAncestors}`,
  ].join('; ');
}

/**
 * Who may frame the page: the `origin` query parameter (the SDK's iframe names its page's origin) when some
 * company lists it in allowedOrigins; anything else, or nothing, `'none'`. Never more than that one origin:
 * a list of every company's origins would tell anyone who the gateway's customers are. Which company's
 * origin it must be is known only once the token arrives; the page then checks (GET /v2/end-user/session).
 */
export async function frameAncestors(store: Store, requested: unknown): Promise<string> {
  if (typeof requested !== 'string' || requested === '') return "'none'";
  const parsed = parseOrigin(requested, 'origin');
  if ('problem' in parsed) return "'none'";
  return (await store.embeddingSettings.count({ allowedOrigins: parsed.origin })) > 0 ? parsed.origin : "'none'";
}

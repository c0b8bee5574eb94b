import type { HttpSettings } from '../../services.ts';
import { originOf } from '../../../tenancy/embedding/origins.ts';

/** The page the OAuth flow returns to when the Connect page started it: it hands the outcome to the page and closes. */
export const OAUTH_RETURN_PATH = '/connect/oauth-return';

/** Host names that always mean this machine: a Host header naming one cannot send a browser elsewhere. */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * The origins the gateway's own pages are served on: PUBLIC_BASE_URL's (and EMBEDDED_BASE_URL's) origin;
 * while PUBLIC_BASE_URL is unset (its default, http://localhost:<PORT>), also the origin the request came
 * to when it names this machine (127.0.0.1, another port with PORT=0) AND the port the gateway is listening
 * on (`listeningPort`: the local port of the request's own connection), which is how a gateway on a
 * developer's machine is reached. Any other Host is the caller's word only: trusting it would make the
 * OAuth callback an open redirect to whatever host a request named, or to another program on this machine
 * (`Host: 127.0.0.1:<its port>`) that would then receive the connection's id. Behind a real address,
 * PUBLIC_BASE_URL is the setting. The OAuth callback's redirect_uri is computed from the same setting
 * (engine/http/connect/authorize.ts).
 */
export function gatewayOrigins(config: Pick<HttpSettings, 'publicBaseUrl' | 'embeddedBaseUrl' | 'port'>, requestOrigin: string, listeningPort: number | undefined): string[] {
  const origins = [originOf(config.publicBaseUrl), originOf(config.embeddedBaseUrl)];
  if (config.publicBaseUrl === `http://localhost:${config.port}` && URL.canParse(requestOrigin)) {
    const url = new URL(requestOrigin);
    const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
    if (LOOPBACK_HOSTS.has(url.hostname) && port === listeningPort) origins.push(originOf(requestOrigin));
  }
  return [...new Set(origins.filter((o): o is string => o !== null))];
}

/** A returnUrl that is the gateway's own OAuth return page (on one of its own origins, that exact path). */
export function isOwnReturnPage(returnUrl: string, ownOrigins: readonly string[]): boolean {
  if (!URL.canParse(returnUrl)) return false;
  const url = new URL(returnUrl);
  return ownOrigins.includes(url.origin) && url.pathname === OAUTH_RETURN_PATH && !url.username && !url.password;
}

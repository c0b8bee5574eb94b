import type { HttpSettings } from '../../services.ts';

/**
 * Where a person opens the API pages, for the start log line: on PUBLIC_BASE_URL when it was set, otherwise
 * on localhost at the port actually bound (PORT=0 picks one, which the default base URL cannot know).
 */
export function docsUrl(config: Pick<HttpSettings, 'publicBaseUrl' | 'port'>, boundPort: number): string {
  const defaulted = config.publicBaseUrl === `http://localhost:${config.port}`;
  return `${defaulted ? `http://localhost:${boundPort}` : config.publicBaseUrl}/docs`;
}

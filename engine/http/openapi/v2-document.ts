import type { OpenAPIObject } from 'openapi3-ts/oas31';
import type { HttpSettings } from '../services.ts';
import { END_USER_EXAMPLES } from '../end-users/examples.ts';
import { buildDocument } from './build-document.ts';
import { V2_ENDPOINTS } from './v2-endpoints.ts';

/** The OpenAPI 3.1 document of everything the v1 document does not cover. */
export function buildV2Document(config: Pick<HttpSettings, 'publicBaseUrl'>): OpenAPIObject {
  return buildDocument(
    {
      title: 'Integration gateway v2',
      version: '2.0.0',
      description:
        'Describing and running app actions, connections, installations, end users, app configuration, the OAuth 2.0 connect flow, the proxy to any endpoint of a connected app, and the definitions status. ' +
        'The v1 surface is in /v1/openapi.json. Every failure answers { success: false, error: { code, message } }; the runs answer 429 and 502 with the envelope. ' +
        'AI agents: POST /mcp is a Model Context Protocol endpoint (Streamable HTTP) with one tool per action of the connections named in a Connection-Id header (API key) or of the end user (end-user token); ' +
        'it speaks JSON-RPC, not this REST surface, so it and its protected resource metadata (/.well-known/oauth-protected-resource/mcp) are described in docs/mcp.md, not here.',
    },
    [{ url: config.publicBaseUrl, description: 'Base URL' }],
    V2_ENDPOINTS,
    { ...END_USER_EXAMPLES },
  );
}

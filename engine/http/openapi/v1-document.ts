import type { OpenAPIObject } from 'openapi3-ts/oas31';
import type { HttpSettings } from '../services.ts';
import { buildDocument } from './build-document.ts';
import { V1_EXAMPLES } from './v1-examples.ts';
import { V1_ENDPOINTS } from './v1-endpoints.ts';

/**
 * The OpenAPI 3.1 document of the v1 surface, exactly: version 1.0.0, as the
 * specification says. Everything else is in the v2 document.
 */
export function buildV1Document(config: Pick<HttpSettings, 'publicBaseUrl' | 'embeddedBaseUrl'>): OpenAPIObject {
  return buildDocument(
    {
      title: 'Integration gateway v1',
      version: '1.0.0',
      description:
        'Embedded end users and their session tokens, company members and profiles, and running app actions with an installation\'s credentials. ' +
        'Every failure answers { success: false, error: { code, message } }. ' +
        "An end-user token also opens POST /mcp, the Model Context Protocol endpoint for AI agents, to the tools of that end user's connections: it speaks JSON-RPC, not REST, and is described in docs/mcp.md.",
    },
    [
      { url: config.publicBaseUrl, description: 'Base URL' },
      { url: config.embeddedBaseUrl, description: 'Embedded URL: the same /v1 paths for embedded sessions' },
    ],
    V1_ENDPOINTS,
    V1_EXAMPLES,
  );
}

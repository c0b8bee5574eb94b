import type { DefinitionsRegistry } from '../core/definitions/index.ts';
import type { RunServices } from '../core/run/run-services.ts';
import type { Keyring } from '../platform/crypto/keyring.ts';
import type { Logger } from '../platform/log/logger.ts';
import type { Store } from '../platform/store/index.ts';
import type { EndUserTokenSettings } from '../tenancy/end-user-tokens/settings.ts';
import type { ProxySettings } from '../core/proxy/settings.ts';
import type { McpSettings } from './settings.ts';

/** What the MCP surface is built from; engine/gateway.ts wires the real ones. */
export interface McpServices {
  /** API keys, end users, connections, embedding settings. */
  store: Store;
  /** Opens the end-user token signing keys. */
  keyring: Keyring;
  logger: Logger;
  /** The live definitions; a request takes `current()` once. */
  definitions: Pick<DefinitionsRegistry, 'current'>;
  /** What a run of an action is given: the same as the REST run endpoints'. */
  run: RunServices;
  config: {
    /** Where clients reach the gateway (no trailing slash): the endpoint's own URL, its own origin. */
    publicBaseUrl: string;
    embeddedBaseUrl: string;
    endUserTokens: EndUserTokenSettings;
    mcp: McpSettings;
    /** The proxy's limits, for the `<app>_request` tools. */
    proxy: ProxySettings;
  };
}

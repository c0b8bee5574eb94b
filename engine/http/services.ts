import type { RunAction } from '../core/arguments/index.ts';
import type { DefinitionsRegistry } from '../core/definitions/index.ts';
import type { RunServices } from '../core/run/run-services.ts';
import type { ProxySettings } from '../core/proxy/settings.ts';
import type { ReadinessCheck } from '../platform/health/readiness.ts';
import type { HttpClient } from '../platform/outbound/index.ts';
import type { EndUserTokenSettings } from '../tenancy/end-user-tokens/settings.ts';
import type { TenancyServices } from '../tenancy/tenancy-services.ts';
import type { MetricsSettings } from './observability/metrics-settings.ts';
import type { HttpServerSettings } from './server/settings.ts';

export type { ReadinessCheck };

/** The settings the HTTP surface reads; the gateway's Config (engine/config/) is one. */
export interface HttpSettings extends Pick<TenancyServices['config'], 'webhooks' | 'egressAllow'> {
  port: number;
  /** Where clients reach the gateway (no trailing slash). */
  publicBaseUrl: string;
  /** The embedded host serving the same /v1 paths (no trailing slash). */
  embeddedBaseUrl: string;
  endUserTokens: EndUserTokenSettings;
  metrics: MetricsSettings;
  server: HttpServerSettings;
  proxy: ProxySettings;
}

/** What the HTTP app is built from; engine/gateway.ts wires the real ones, tests their own. */
export interface Services extends TenancyServices {
  config: HttpSettings;
  readiness: ReadinessCheck[];
  /** The live app definitions; a request takes `definitions.current()` once and keeps it. */
  definitions: DefinitionsRegistry;
  /** Every call to a third-party app or a token endpoint: egress policy, timeouts, size limit. */
  http: HttpClient;
  /** What a run of an action is given (core/run/run-services.ts). */
  run: RunServices;
  /**
   * Runs an action through the engine (for Lookup list options). Unset until
   * the run engine is wired; routes that need it answer LOOKUP_UNAVAILABLE.
   * Read per request, so it can be set after the app is built.
   */
  runAction?: RunAction;
}

import type { RunAction } from '../core/arguments/index.ts';
import type { Config } from '../config/config.ts';
import type { Keyring } from '../platform/crypto/keyring.ts';
import type { HttpClient } from '../platform/outbound/index.ts';
import type { DefinitionsRegistry } from '../core/definitions/index.ts';
import type { Logger } from '../platform/log/logger.ts';
import type { GatewayMetrics } from '../platform/metrics/gateway-metrics.ts';
import type { Store } from '../platform/store/index.ts';
import type { WebhookWorker } from '../tenancy/webhooks/worker.ts';

/** A named probe for GET /ready: null when healthy, the reason otherwise. */
export interface ReadinessCheck {
  name: string;
  check(): Promise<string | null>;
}

/** What the HTTP app is built from; main.ts wires the real ones, tests their own. */
export interface Services {
  config: Config;
  store: Store;
  logger: Logger;
  readiness: ReadinessCheck[];
  /** Encrypts credentials and other secrets at rest. */
  keyring: Keyring;
  /** The live app definitions; a request takes `definitions.current()` once and keeps it. */
  definitions: DefinitionsRegistry;
  /** Every call to a third-party app or a token endpoint: egress policy, timeouts, size limit. */
  http: HttpClient;
  /**
   * Runs an action through the engine (for Lookup list options). Unset until
   * the run engine is wired; routes that need it answer LOOKUP_UNAVAILABLE.
   * Read per request, so it can be set after the app is built.
   */
  runAction?: RunAction;
  /** The gateway's Prometheus metrics (its own registry); unset where nothing is scraped (offline tools, some tests). */
  metrics?: GatewayMetrics;
  /** The webhook delivery worker of this process, woken when an event is written; unset where none runs (offline tools, some tests). */
  webhookWorker?: WebhookWorker;
}

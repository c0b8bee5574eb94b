import type { Keyring } from '../platform/crypto/keyring.ts';
import type { EgressAllowList } from '../platform/egress/allow-list.ts';
import type { Logger } from '../platform/log/logger.ts';
import type { GatewayMetrics } from '../platform/metrics/gateway-metrics.ts';
import type { Store } from '../platform/store/index.ts';
import type { WebhookSettings } from './webhooks/settings.ts';

/**
 * What the tenancy functions work with: the store, the keyring that seals
 * credentials, the log, and the webhook outbox's settings and worker (an
 * event is written with the change it tells of, and wakes the worker). The
 * HTTP surface's services are a superset; offline tools build just this.
 */
export interface TenancyServices {
  store: Store;
  keyring: Keyring;
  logger: Logger;
  /** The apps the gateway has loaded, as far as tenant records name them (an installation's or embedding's apps, by slug). */
  definitions: LoadedApps;
  metrics?: GatewayMetrics;
  config: {
    /** How webhook deliveries are retried and kept. */
    webhooks: WebhookSettings;
    /** What a webhook URL may point at (checked at registration). */
    egressAllow: EgressAllowList;
  };
  /** The webhook delivery worker of this process, woken when an event is written; unset where none runs. */
  webhookWorker?: { wake(): void };
}

/**
 * The loaded apps as tenancy sees them: their ids and slugs. The core's
 * definitions registry is one (tenancy may not import it: it is a layer up).
 */
export interface LoadedApps {
  current(): { appsBySlug: ReadonlyMap<string, { id: string; slug: string }> };
}

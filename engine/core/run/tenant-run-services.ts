import type { Logger } from '../../platform/log/logger.ts';
import type { GatewayMetrics } from '../../platform/metrics/gateway-metrics.ts';
import type { HttpClient } from '../../platform/outbound/index.ts';
import type { AppCallLimiter } from '../concurrency/index.ts';
import type { MappingWorkers } from '../mapping/index.ts';
import { openedAppConfigurations } from '../../tenancy/app-configurations/opened.ts';
import { connectionTokenStore } from '../../tenancy/connections/token-store.ts';
import type { TenancyServices } from '../../tenancy/tenancy-services.ts';
import { SYSTEM_CLOCK, type RunServices, type RunSettings } from './run-services.ts';

/** A run's services over the tenant records: renewals written to the connections, app configurations read from the store. */
export function tenantRunServices(
  tenancy: TenancyServices,
  parts: { http: HttpClient; settings: RunSettings; calls?: AppCallLimiter; mappingWorkers?: MappingWorkers; logger?: Logger; metrics?: GatewayMetrics | undefined },
): RunServices {
  return {
    http: parts.http,
    calls: parts.calls,
    keyring: tenancy.keyring,
    tokens: connectionTokenStore(tenancy),
    appConfigurations: openedAppConfigurations(tenancy),
    clock: SYSTEM_CLOCK,
    logger: parts.logger ?? tenancy.logger,
    metrics: parts.metrics ?? tenancy.metrics,
    settings: parts.settings,
    mappingWorkers: parts.mappingWorkers,
  };
}

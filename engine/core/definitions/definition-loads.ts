import type { DefinitionsRegistry } from './index.ts';
import type { GatewayMetrics } from '../../platform/metrics/gateway-metrics.ts';

/**
 * Counts each load of the definitions by result (loaded, rejected), and has
 * the snapshot-age gauge read the live snapshot's load time at each scrape.
 */
export function observeDefinitionLoads(metrics: GatewayMetrics, definitions: DefinitionsRegistry): void {
  definitions.onLoad = (ok) => metrics.definitionLoads.inc({ result: ok ? 'loaded' : 'rejected' });
  metrics.sources.snapshotLoadedAt = () => {
    const loadedAt = definitions.status().loadedAt;
    return loadedAt ? new Date(loadedAt) : null;
  };
}

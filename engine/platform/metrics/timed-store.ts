import { COLLECTION_NAMES, type Store } from '../store/port.ts';
import type { GatewayMetrics } from './gateway-metrics.ts';

const OPERATIONS = new Set(['insert', 'findOne', 'find', 'count', 'updateOne', 'deleteOne', 'deleteMany']);

/**
 * The Store port with every collection operation (and ping) timed into
 * gateway_store_operation_duration_seconds, failed ones included; the
 * adapters are not touched. Anything else (kind, writeCount, close, what an
 * adapter adds) passes through as the adapter has it.
 */
export function timedStore(store: Store, metrics: GatewayMetrics): Store {
  const collections = new Map<string | symbol, unknown>();
  for (const name of COLLECTION_NAMES) collections.set(name, timedMethods(store[name], name, metrics, OPERATIONS));
  const top = timedMethods(store, 'store', metrics, new Set(['ping']));
  return new Proxy(store, {
    get(_target, property) {
      return collections.has(property) ? collections.get(property) : Reflect.get(top as object, property);
    },
  });
}

/** A proxy of `target` whose `operations` are timed; other properties read from the target itself (its getters see the target, not the proxy). */
function timedMethods<T extends object>(target: T, collection: string, metrics: GatewayMetrics, operations: Set<string>): T {
  return new Proxy(target, {
    get(object, property) {
      const value = Reflect.get(object, property);
      if (typeof property !== 'string' || !operations.has(property) || typeof value !== 'function') {
        return typeof value === 'function' ? value.bind(object) : value;
      }
      return async (...args: unknown[]) => {
        const end = metrics.storeDuration.startTimer({ collection, operation: property });
        try {
          return await (value as (...a: unknown[]) => Promise<unknown>).apply(object, args);
        } finally {
          end();
        }
      };
    },
  });
}

import type { Store } from '../store/port.ts';

/** Tracing once started: what the gateway wraps in spans, and how it stops. */
export interface Tracing {
  /** The store with a span per operation when tracing is on; the store itself when off. */
  store(store: Store): Store;
  /** Exports what is buffered and unregisters the SDK (gateway stop). */
  shutdown(): Promise<void>;
}

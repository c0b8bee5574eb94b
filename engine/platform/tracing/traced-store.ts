import { context, SpanKind, trace } from '@opentelemetry/api';
import { COLLECTION_NAMES, type Collection, type Store } from '../store/port.ts';
import { activeTracer, failed } from './tracer.ts';

/** The Collection methods that reach the store; anything else (writeCount, what an adapter adds) passes through as it is. */
const OPERATIONS = new Set(['insert', 'findOne', 'find', 'count', 'updateOne', 'deleteOne', 'deleteMany']);

/**
 * The Store port with a span around each operation (`findOne connections`),
 * in whichever adapter is behind it: the database system, collection and
 * operation, never a filter, update or record (they hold key hashes,
 * sealed credentials and end users' data). Only inside a trace: an operation
 * with no current span (start-up, a timer) makes none, so traces are
 * requests and the background makes no stream of root spans.
 */
export function traceStore(store: Store): Store {
  const system = store.kind === 'mongodb' ? 'mongodb' : store.kind === 'nedb' ? 'nedb' : 'postgresql';
  const collections = new Map<string, unknown>(COLLECTION_NAMES.map((name) => [name, tracedCollection(store[name] as Collection<{ id: string }>, name, system, store.kind === 'postgres')]));
  return new Proxy(store, {
    get(target, property, receiver) {
      if (typeof property === 'string' && collections.has(property)) return collections.get(property);
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

function tracedCollection<T extends { id: string }>(collection: Collection<T>, name: string, system: string, remote: boolean): Collection<T> {
  const wrapped = new Map<string, unknown>();
  for (const operation of OPERATIONS) {
    const method = (collection as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>)[operation]!;
    wrapped.set(operation, (...args: unknown[]) => {
      const tracer = activeTracer();
      const parent = context.active();
      if (!tracer || !trace.getSpan(parent)) return method.apply(collection, args);
      const span = tracer.startSpan(`${operation} ${name}`, {
        kind: system === 'mongodb' || remote ? SpanKind.CLIENT : SpanKind.INTERNAL,
        attributes: { 'db.system.name': system, 'db.collection.name': name, 'db.operation.name': operation },
      });
      return context.with(trace.setSpan(parent, span), () => method.apply(collection, args)).then(
        (result) => {
          span.end();
          return result;
        },
        (error: unknown) => {
          failed(span, error);
          span.end();
          throw error;
        },
      );
    });
  }
  return new Proxy(collection, {
    get(target, property, receiver) {
      if (typeof property === 'string' && wrapped.has(property)) return wrapped.get(property);
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

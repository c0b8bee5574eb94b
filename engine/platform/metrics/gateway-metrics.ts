import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Latency buckets in seconds: 5 ms to 30 s, covering a store read and an app call waiting out its timeouts. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Store operations are mostly sub-millisecond on the embedded store. */
const STORE_BUCKETS = [0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5];

/**
 * The gateway's Prometheus metrics, in a registry of its own: several
 * gateways in one process (the test suite) never share or collide in
 * prom-client's global registry. Labels are bounded: a route is the router's
 * template, an app and an action are slugs of loaded definitions, a status
 * is an HTTP status or a closed set of error kinds; never a company,
 * connection or end-user id.
 */
export function createGatewayMetrics() {
  const registry = new Registry();
  // Process CPU, memory, file descriptors, GC, and the event loop's lag (nodejs_eventloop_lag_*).
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  /** Where gauges read their value at scrape time; set by whoever owns the fact (observeDefinitionLoads). */
  const sources = { snapshotLoadedAt: (): Date | null => null };
  return {
    registry,
    sources,
    httpRequests: new Counter({
      name: 'gateway_http_requests_total',
      help: 'HTTP requests answered, by route template, method and status.',
      labelNames: ['route', 'method', 'status'] as const,
      registers,
    }),
    httpDuration: new Histogram({
      name: 'gateway_http_request_duration_seconds',
      help: 'Time from receiving a request to answering it, by route template, method and status.',
      labelNames: ['route', 'method', 'status'] as const,
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    runs: new Counter({
      name: 'gateway_runs_total',
      help: 'Action runs, by app, action and outcome (success, app_error, rate_limited, mapping_error, needs_reauthorization, upstream_timeout, ...).',
      labelNames: ['app', 'action', 'outcome'] as const,
      registers,
    }),
    appCalls: new Counter({
      name: 'gateway_app_calls_total',
      help: "Calls to third-party apps made by runs, by app, action and the app's HTTP status or the error kind (upstream_timeout, egress_denied, ...).",
      labelNames: ['app', 'action', 'status'] as const,
      registers,
    }),
    appCallDuration: new Histogram({
      name: 'gateway_app_call_duration_seconds',
      help: 'Time of one call to a third-party app (redirects included), by app, action and status or error kind.',
      labelNames: ['app', 'action', 'status'] as const,
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    rateLimitRetries: new Counter({
      name: 'gateway_rate_limit_retries_total',
      help: 'App calls sent again after a rate limit, by app.',
      labelNames: ['app'] as const,
      registers,
    }),
    tokenRenewals: new Counter({
      name: 'gateway_token_renewals_total',
      help: 'OAuth 2.0 token renewals, by app and outcome (renewed, or the error code of the failure in lower case).',
      labelNames: ['app', 'outcome'] as const,
      registers,
    }),
    webhookAttempts: new Counter({
      name: 'gateway_webhook_attempts_total',
      help: 'Webhook delivery attempts, by outcome (delivered, retrying, given_up, gone: the endpoint answered 410 and was disabled; not_sent: the endpoint was disabled or deleted, or its secret unreadable).',
      labelNames: ['outcome'] as const,
      registers,
    }),
    webhookDeliveriesDropped: new Counter({
      name: 'gateway_webhook_deliveries_dropped_total',
      help: 'Webhook deliveries dropped unsent, by reason (max_pending: an event found WEBHOOK_MAX_PENDING pending for the endpoint, and the oldest went; endpoint_disabled: the gateway disabled the endpoint).',
      labelNames: ['reason'] as const,
      registers,
    }),
    webhookEndpointsDisabled: new Counter({
      name: 'gateway_webhook_endpoints_disabled_total',
      help: 'Webhook endpoints the gateway disabled, by reason (gone: it answered 410; failing: every delivery failed for a whole WEBHOOK_RETRY_WINDOW_MS).',
      labelNames: ['reason'] as const,
      registers,
    }),
    mappingErrors: new Counter({
      name: 'gateway_mapping_errors_total',
      help: 'Response mappings that failed in a run, by reason (timeout, stack, sequence, size, error, regex, evaluation).',
      labelNames: ['reason'] as const,
      registers,
    }),
    definitionLoads: new Counter({
      name: 'gateway_definition_loads_total',
      help: 'Loads of the app definitions (the start, hot reloads, SIGHUP), by result (loaded, rejected).',
      labelNames: ['result'] as const,
      registers,
    }),
    snapshotAge: new Gauge({
      name: 'gateway_definitions_snapshot_age_seconds',
      help: 'Seconds since the live definitions snapshot was loaded; 0 while none is (GET /ready says not ready then).',
      registers,
      collect() {
        const loadedAt = sources.snapshotLoadedAt();
        this.set(loadedAt ? (Date.now() - loadedAt.getTime()) / 1000 : 0);
      },
    }),
    storeDuration: new Histogram({
      name: 'gateway_store_operation_duration_seconds',
      help: 'Time of one store operation, by collection and operation (insert, findOne, find, count, updateOne, deleteOne, deleteMany, ping).',
      labelNames: ['collection', 'operation'] as const,
      buckets: STORE_BUCKETS,
      registers,
    }),
  };
}

export type GatewayMetrics = ReturnType<typeof createGatewayMetrics>;


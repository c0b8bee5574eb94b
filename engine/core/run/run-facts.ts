import { GatewayError } from '../../platform/errors/index.ts';

/** How a run ended, as the request log and the metrics name it: a closed set, so it is a bounded metric label. */
export type RunOutcomeKind =
  | 'success'
  | 'app_error'
  | 'rate_limited'
  | 'mapping_error'
  | 'needs_reauthorization'
  | 'token_error'
  | 'upstream_timeout'
  | 'upstream_busy'
  | 'upstream_unreachable'
  | 'upstream_error'
  | 'egress_denied'
  | 'rejected'
  | 'cancelled'
  | 'failed';

/**
 * The facts of one run, recorded on ctx.state.run as the run goes (the run
 * routes, run-action's app calls) and read once at the end: by the request
 * log (one line tells the run's story) and by the metrics. Ids and slugs,
 * statuses and counts only: never an argument, a credential or a response.
 */
export interface RunFacts {
  companyId: string;
  app: string;
  action: string;
  version: string;
  connectionId: string;
  /** The HTTP status of the last app call; absent when no call got an answer. */
  upstreamStatus?: number;
  /** Milliseconds spent in app calls, all attempts together. */
  upstreamMs?: number;
  /** App calls sent again after a rate limit. */
  retries: number;
  outcome?: RunOutcomeKind;
}

/** What a surface resolved before it runs: the facts a run starts with (no outcome yet). */
export function runFactsOf(start: { companyId: string; version: { app: { slug: string }; version: string | number }; action: { slug: string }; connection: { id: string } }): RunFacts {
  return {
    companyId: start.companyId,
    app: start.version.app.slug,
    action: start.action.slug,
    version: String(start.version.version),
    connectionId: start.connection.id,
    retries: 0,
  };
}

/** The outcome of a run the engine answered with its envelope (200, 429 or 502). */
export function envelopeOutcome(status: number, success: boolean): RunOutcomeKind {
  if (status === 429) return 'rate_limited';
  if (status === 502) return 'mapping_error';
  return success ? 'success' : 'app_error';
}

const ERROR_OUTCOMES: Record<string, RunOutcomeKind> = {
  CONNECTION_NEEDS_REAUTHORIZATION: 'needs_reauthorization',
  AUTH_REFRESH_FAILED: 'needs_reauthorization',
  TOKEN_EXCHANGE_FAILED: 'token_error',
  AUTH_PROVIDER_UNAVAILABLE: 'token_error',
  UPSTREAM_TIMEOUT: 'upstream_timeout',
  UPSTREAM_BUSY: 'upstream_busy',
  UPSTREAM_UNREACHABLE: 'upstream_unreachable',
  RESPONSE_TOO_LARGE: 'upstream_error',
  UPSTREAM_PROTOCOL_ERROR: 'upstream_error',
  EGRESS_DENIED: 'egress_denied',
  MAPPING_ERROR: 'mapping_error',
};

/** The outcome of a run that ended in an error: the caller went away, the app failed, or the request was refused (a 4xx). */
export function errorOutcome(error: unknown, cancelled: boolean): RunOutcomeKind {
  if (cancelled) return 'cancelled';
  if (!(error instanceof GatewayError)) return 'failed';
  return ERROR_OUTCOMES[error.code] ?? (error.status < 500 ? 'rejected' : 'failed');
}

import { integer, type Env } from '../../platform/settings/env.ts';

/** How calls beyond an app's concurrency (api.yaml) wait (see app-calls.ts). */
export interface AppCallSettings {
  /** OUTBOUND_QUEUE_LENGTH: calls that may wait for one connection's slots at once; one more is refused with 503 UPSTREAM_BUSY. */
  queueLength: number;
}

export const DEFAULT_APP_CALL_SETTINGS: AppCallSettings = { queueLength: 100 };

/** OUTBOUND_QUEUE_LENGTH. */
export function appCallSettingsFromEnv(env: Env): AppCallSettings {
  return { queueLength: integer(env, 'OUTBOUND_QUEUE_LENGTH', DEFAULT_APP_CALL_SETTINGS.queueLength, 0, 100_000) };
}

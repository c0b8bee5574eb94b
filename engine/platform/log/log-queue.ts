import { integer, type Env } from '../settings/env.ts';

/** LOG_QUEUE_MAX_BYTES's default: 32 MiB of lines, ~75,000 lines of runs (~40 s of a gateway logging 2,000 runs a second). */
export const DEFAULT_LOG_QUEUE_MAX_BYTES = 32 * 1024 * 1024;

/**
 * LOG_QUEUE_MAX_BYTES: the most bytes of log lines the process holds while
 * stdout does not take them (a log shipper that stopped reading, a full
 * pipe); lines beyond it are dropped whole, counted, and the count is logged
 * once stdout takes lines again. 1 MiB to 1 GiB.
 */
export function logQueueMaxBytesFromEnv(env: Env): number {
  return integer(env, 'LOG_QUEUE_MAX_BYTES', DEFAULT_LOG_QUEUE_MAX_BYTES, 1024 * 1024, 1024 * 1024 * 1024);
}

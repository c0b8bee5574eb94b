import { oneOf, type Env } from '../settings/env.ts';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** LOG_LEVEL: `info` unless set. */
export function logLevelFromEnv(env: Env): LogLevel {
  return oneOf(env, 'LOG_LEVEL', LOG_LEVELS, 'info');
}

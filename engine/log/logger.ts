import { pino, type Logger, type DestinationStream } from 'pino';
import type { LogLevel } from '../config/config.ts';

export type { Logger };

/**
 * Structured JSON logs. Secrets never reach a log line: request bodies are not
 * logged at all, and these paths are redacted wherever they appear.
 */
export const REDACTED_PATHS = [
  'authorization',
  'req.headers.authorization',
  'headers.authorization',
  'credentials',
  '*.credentials',
  'apiKey',
  '*.apiKey',
  'token',
  '*.token',
  'accessToken',
  '*.accessToken',
  'refreshToken',
  '*.refreshToken',
  'clientSecret',
  '*.clientSecret',
  'password',
  '*.password',
];

export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: undefined,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}

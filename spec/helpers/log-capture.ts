import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../engine/platform/log/logger.ts';

/** A real pino logger writing into memory, so tests can read what would be logged. */
export function captureLogs(): { logger: Logger; lines: () => string[]; text: () => string } {
  const chunks: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  const logger = createLogger('trace', destination);
  const text = () => chunks.join('');
  return { logger, text, lines: () => text().split('\n').filter(Boolean) };
}

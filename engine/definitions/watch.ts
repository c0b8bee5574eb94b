import type { EventEmitter } from 'node:events';
import path from 'node:path';
import { watch } from 'chokidar';
import type { Logger } from '../log/logger.ts';
import type { DefinitionsRegistry } from './registry.ts';

/** Saves within this window become one reload: editors write a file in several steps. */
export const RELOAD_DEBOUNCE_MS = 150;

/**
 * Watches the registry's folder and reloads after changes settle. Resolves
 * once the watcher is ready (so no change after it is missed); the returned
 * function stops watching.
 */
export async function watchDefinitions(registry: DefinitionsRegistry, logger: Logger, debounceMs = RELOAD_DEBOUNCE_MS): Promise<() => Promise<void>> {
  const root = registry.dir;
  const watcher = watch(root, {
    ignoreInitial: true,
    ignored: (file: string) => path.relative(root, file).split(path.sep).some((part) => part.startsWith('.')),
  });
  // chokidar types its events with a generic EventEmitter that @types/node 20.9 does not have yet.
  const events = watcher as unknown as EventEmitter;
  let timer: NodeJS.Timeout | null = null;
  events.on('all', (event: string, file: string) => {
    logger.debug({ event, file }, 'definitions changed');
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      void registry.reload(`${event} ${path.relative(root, file)}`);
    }, debounceMs);
  });
  events.on('error', (error: unknown) => logger.warn({ err: error }, 'watching definitions failed; SIGHUP still reloads'));
  await new Promise<void>((resolve) => events.once('ready', () => resolve()));
  return async () => {
    if (timer) clearTimeout(timer);
    await watcher.close();
  };
}

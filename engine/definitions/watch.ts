import type { EventEmitter } from 'node:events';
import fs from 'node:fs/promises';
import type { Stats } from 'node:fs';
import path from 'node:path';
import { watch } from 'chokidar';
import type { Logger } from '../log/logger.ts';
import type { DefinitionsRegistry } from './registry.ts';

/**
 * Events within this window become one reload (an editor writes a file in
 * several steps; a checkout writes many). Short is safe because a reload
 * that reads a half-written file only fails: the registry keeps the last good
 * snapshot serving, and the write that completes the file is seen and
 * reloaded too: as its own chokidar event, or (when chokidar swallowed that
 * event, see CHOKIDAR_CHANGE_THROTTLE_MS) by the stat check after it. Loads
 * never overlap; changes during one are read by the next.
 *
 * chokidar 5 as configured here adds no wait of its own to an add or change:
 * awaitWriteFinish is off (on, it would hold each event until the file size
 * has been still for 2 s). `atomic` is on, as by default without polling: a
 * deleted file is reported 100 ms late, in case an editor's save puts it
 * back (then it is one change), so a deletion serves ~100 ms later than an
 * edit.
 */
export const RELOAD_DEBOUNCE_MS = 25;

/**
 * chokidar reports a path's 'change' at most once per 50 ms and drops (not
 * delays) the changes inside that window, and drops raw events of a path
 * within 5 ms of one it handles. A write landing in those windows after our
 * reload read the file would never be read. So this long after each event of
 * a file, its size and mtime are compared with what that event saw; a
 * difference is handled as one more change.
 */
const CHOKIDAR_CHANGE_THROTTLE_MS = 50;
const STAT_CHECK_AFTER_MS = CHOKIDAR_CHANGE_THROTTLE_MS + 10;

/** Events after which the changed file paths say everything that changed. */
const FILE_EVENTS = new Set(['add', 'change', 'unlink']);

/**
 * Watches the registry's folder and reloads after changes settle: only the
 * files added, changed or deleted when that is all that happened, everything
 * after a folder was added or removed (a folder renamed, a tree copied in) or
 * the watcher failed. Resolves once the watcher is ready (so no change after
 * it is missed); the returned function stops watching.
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
  /** The files changed in this window; null once something happened that only a full reload is sure about. */
  let changed: Set<string> | null = new Set();
  const statChecks = new Map<string, NodeJS.Timeout>();
  let closed = false;

  const changedSince = (event: string, file: string, reason: string) => {
    // A stat check that was under way when watching stopped.
    if (closed) return;
    if (changed && FILE_EVENTS.has(event)) changed.add(file);
    else changed = null;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      const paths = changed;
      changed = new Set();
      void registry.reload(reason, paths ? [...paths] : undefined);
    }, debounceMs);
  };
  const checkLater = (file: string, seen: Stats) => {
    clearTimeout(statChecks.get(file));
    const check = async () => {
      statChecks.delete(file);
      const now = await fs.stat(file).catch(() => null);
      // Gone: chokidar reports the unlink itself.
      if (now && (now.size !== seen.size || now.mtimeMs !== seen.mtimeMs)) changedSince('change', file, `change ${path.relative(root, file)} (seen by stat)`);
    };
    statChecks.set(file, setTimeout(() => void check(), STAT_CHECK_AFTER_MS));
  };

  events.on('all', (event: string, file: string, stats?: Stats) => {
    logger.debug({ event, file }, 'definitions changed');
    changedSince(event, file, `${event} ${path.relative(root, file)}`);
    if ((event === 'add' || event === 'change') && stats) checkLater(file, stats);
  });
  // A watcher that fails (no inotify watches left, say) must not stop the gateway from starting.
  let ready = false;
  await new Promise<void>((resolve) => {
    events.once('ready', () => {
      ready = true;
      resolve();
    });
    events.on('error', (error: unknown) => {
      logger.warn({ err: error }, 'watching definitions failed; SIGHUP still reloads');
      // Events may have been lost: once watching, the next reload reads everything.
      if (ready) changedSince('error', root, 'watcher error');
      resolve();
    });
  });
  return async () => {
    closed = true;
    if (timer) clearTimeout(timer);
    for (const check of statChecks.values()) clearTimeout(check);
    await watcher.close();
  };
}

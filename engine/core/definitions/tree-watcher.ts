import { lstatSync, watch as watchFs } from 'node:fs';
import path from 'node:path';
import type { Logger } from '../../platform/log/logger.ts';

/** A path created, changed or deleted under a watched folder (absolute). */
export interface TreeEvent {
  type: 'create' | 'update' | 'delete';
  path: string;
}

export interface TreeSubscription {
  unsubscribe(): Promise<void>;
}

/** Watches a folder tree, hidden paths (a part starting with '.') left out; events in the order seen. */
export type SubscribeTree = (root: string, onEvents: (error: Error | null, events: TreeEvent[]) => void) => Promise<TreeSubscription>;

/** How a tree is watched: @parcel/watcher; Node's recursive fs.watch when that cannot load; nothing (SIGHUP-only) when neither works. */
export interface TreeWatcher {
  name: '@parcel/watcher' | 'fs.watch';
  subscribe: SubscribeTree;
}

/** Hidden files and folders (.git, editor swap files), relative to the watched folder: not crawled nor watched by parcel. */
const HIDDEN = ['**/.*', '**/.*/**'];

/** @parcel/watcher's backends; its typings leave out kqueue, which its FreeBSD build has. */
export type ParcelBackend = 'inotify' | 'fs-events' | 'windows' | 'kqueue';

/**
 * The backend @parcel/watcher is told to use on this platform: the kernel's own notification API. Left to
 * choose ("default"), it first asks whether watchman runs, by starting `watchman` through a shell on every
 * subscription: the gateway got a child `sh` it never reaped (a zombie per start and per folder swap). null:
 * no backend known here (parcel has no build for it either); Node's recursive fs.watch watches instead.
 */
export function parcelBackend(platform: NodeJS.Platform): ParcelBackend | null {
  const backends: Partial<Record<NodeJS.Platform, ParcelBackend>> = {
    linux: 'inotify',
    darwin: 'fs-events',
    win32: 'windows',
    freebsd: 'kqueue',
    openbsd: 'kqueue',
    netbsd: 'kqueue',
  };
  return backends[platform] ?? null;
}

/**
 * @parcel/watcher with the platform's backend (parcelBackend), imported only when the definitions are
 * watched: its prebuilt binary may be missing (a platform it has none for, an install with
 * `--omit=optional`), and hot reload is optional. Then Node's own recursive fs.watch, logged once as a
 * warning; when that cannot watch either (a platform without recursive watch), null: SIGHUP-only, also a
 * warning.
 */
export async function loadTreeWatcher(logger: Logger, platform: NodeJS.Platform = process.platform): Promise<TreeWatcher | null> {
  try {
    const backend = parcelBackend(platform);
    if (!backend) throw new Error(`@parcel/watcher has no backend chosen for ${platform}`);
    const parcel = (await import('@parcel/watcher')).default;
    const options = { ignore: HIDDEN, backend: backend as NonNullable<Parameters<typeof parcel.subscribe>[2]>['backend'] };
    return {
      name: '@parcel/watcher',
      subscribe: (root, onEvents) => parcel.subscribe(root, (error, events) => onEvents(error, events.map(({ type, path }) => ({ type, path }))), options),
    };
  } catch (error) {
    const failure = recursiveWatchFailure();
    if (failure) {
      logger.warn({ err: error, fallbackErr: failure }, '@parcel/watcher cannot be loaded and recursive fs.watch does not work here: definitions reload on SIGHUP only');
      return null;
    }
    logger.warn({ err: error }, "@parcel/watcher cannot be loaded: watching definitions with Node's recursive fs.watch");
    return FS_WATCH;
  }
}

/** Why recursive fs.watch cannot watch here (ERR_FEATURE_UNAVAILABLE_ON_PLATFORM), or null when it can. */
function recursiveWatchFailure(): Error | null {
  try {
    watchFs(process.cwd(), { recursive: true, persistent: false }).close();
    return null;
  } catch (error) {
    return error as Error;
  }
}

/**
 * Node's recursive fs.watch (inotify on each folder on Linux, Node 20+).
 * It says `rename` for a path created or deleted and `change` for one
 * written: a renamed path that is there when the event is handled is a
 * creation, one that is gone a deletion. Unlike parcel it does not batch:
 * each event is handled alone, when it arrives. A temporary file created
 * and renamed away (`sed -i`) already gone when its creation is handled is
 * a path deleted that was never seen, which the watcher takes for a folder:
 * such a save then reloads everything rather than the one file (slower, the
 * same snapshot).
 */
export const FS_WATCH: TreeWatcher = {
  name: 'fs.watch',
  subscribe: async (root, onEvents) => {
    const watcher = watchFs(root, { recursive: true, persistent: false }, (eventType, filename) => {
      // Linux always names the file; without a name, events may have been missed: the watcher then reloads everything.
      if (filename === null) return onEvents(new Error('fs.watch reported a change without naming the file'), []);
      const relative = String(filename);
      if (relative.split(path.sep).some((part) => part.startsWith('.'))) return;
      const file = path.join(root, relative);
      let type: TreeEvent['type'] = 'update';
      if (eventType === 'rename') {
        try {
          lstatSync(file);
          type = 'create';
        } catch {
          type = 'delete';
        }
      }
      onEvents(null, [{ type, path: file }]);
    });
    watcher.on('error', (error) => onEvents(error, []));
    return {
      unsubscribe: async () => watcher.close(),
    };
  },
};


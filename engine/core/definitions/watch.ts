import { watch as watchEntries, type FSWatcher, type Stats } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../../platform/log/logger.ts';
import { contentRoot, movedPath, VOLUME_DATA_LINK } from './content-root.ts';
import type { DefinitionsRegistry } from './registry.ts';
import { loadTreeWatcher, type TreeEvent, type TreeSubscription, type TreeWatcher } from './tree-watcher.ts';
import { isDefinitionPath } from './source-files.ts';

/**
 * Events within this window become one reload (an editor writes a file in
 * several steps; a checkout writes many). Short is safe because a reload
 * that reads a half-written file only fails: the registry keeps the last good
 * snapshot serving, and the write that completes the file is reported and
 * reloaded too. Loads never overlap; changes during one are read by the next.
 *
 * @parcel/watcher batches events itself: the first one after 500 ms of quiet
 * is delivered at once (a one-file save is seen in a few ms), later ones
 * once 50 ms pass without another (at least every 500 ms in a steady
 * stream). It delays a second write of a file that way but does not drop it:
 * a file written twice 5-20 ms apart 650 times, and 25-60 ms apart 400 times
 * (89 of them served the first write in between), always served the last
 * write in the end. So no stat check after each event is needed (chokidar,
 * used before, dropped a change within 50 ms of the last one). A file
 * deleted and written again within a batch is one update, so an editor's
 * save by rename is one change, and a deletion is reported as fast as an
 * edit.
 */
export const RELOAD_DEBOUNCE_MS = 25;

/**
 * After the folder was replaced, how long the tree must be quiet before the reload: a folder made again is filled
 * by a copy (`rm -rf definitions && cp -r new definitions`), which can pause longer than RELOAD_DEBOUNCE_MS between
 * files on a busy machine; a reload in such a pause served the apps copied so far as the whole catalogue (20 of 69
 * for 0.4 s, seen from outside). Every event in the tree meanwhile starts the wait again. A symlink re-pointed or a
 * ConfigMap's `..data` swapped is whole at once and waits the same, which costs half a second, not a wrong snapshot.
 */
export const REPLACED_QUIET_MS = 500;

/**
 * A folder's mtime comes from the kernel's coarse clock, which lags the real
 * one by up to a tick (1-10 ms): "changed since t" looks from this much
 * before t.
 */
const CLOCK_TICK_MS = 20;

const VERBS = { create: 'add', update: 'change', delete: 'delete' } as const;

/** How many non-definition files (temporary files of saves) the watcher remembers, to know their deletion is a file's. */
const SEEN_FILES_MAX = 10_000;

/**
 * How often the watcher looks whether the definitions folder was replaced
 * without it hearing of it (a network file system, a watch that failed):
 * a few system calls (realpath, stat), whatever the size of the tree.
 */
export const FOLDER_CHECK_MS = 3_000;

/**
 * Watching the tree starts with a crawl of it, which fails when a folder it
 * found is gone by the time it is watched (a rename storm, a checkout): the
 * tree is changing, not the watcher failing. It starts again once events
 * settle, then after twice as long each time it fails so again, at most this
 * long apart; after VANISHED_WARN_MS of that, it is said as a failure.
 */
const VANISHED_RETRY_MAX_MS = REPLACED_QUIET_MS;
const VANISHED_WARN_MS = 60_000;

/**
 * How long the watch of a folder the definitions moved away from is kept at most, waiting for that folder
 * to be removed (see `retire` in watchDefinitions).
 */
export const RETIRED_WATCH_MS = 10_000;

/**
 * Where the definitions folder really is: `real` is its real path (its
 * symlinks followed), `root` the real folder the tree is watched and read in
 * (`real`, or the folder a Kubernetes volume's `..data` points at).
 */
interface Place {
  real: string;
  root: string;
  /** Which folder `real` is. */
  folder: string;
  /** Which folders `real` and `root` are. */
  key: string;
}

/**
 * Watches the registry's folder and reloads after changes settle: only the
 * files added, changed or deleted when that is all that happened, everything
 * after a folder was added, removed or renamed, or the watcher failed.
 * Resolves once the watcher is watching (so no change after it is missed);
 * the returned function stops watching.
 *
 * @parcel/watcher (inotify on each folder) reports `create`, `update` and
 * `delete` of a path without saying whether it is a file or a folder. A path
 * created or updated is looked at (lstat): a folder is a folder event; a
 * path gone again by then left nothing behind and counts as a file (the
 * temporary file of a save by rename: `sed -i` names it sedXXXXXX; taken for
 * a folder, each such save re-read and re-watched the whole tree). A deleted
 * path is a file when its name is a definition file's (isDefinitionPath) or
 * the watcher saw it created or changed as a file (that temporary file
 * renamed away), else it may have been a folder (deleting a README or a test case also
 * reloads everything: rare, and only slower).
 *
 * On a folder created (or moved in), parcel watches that folder but not
 * folders made inside it before its watch was set (mkdir -p, a copied tree),
 * and never reports them or what is written in them. So before the full
 * reload it starts watching again (a new crawl of the tree); a folder that
 * changed while that ran may hold such a folder again, and counts as one
 * more folder event.
 *
 * The folder itself may be replaced: removed and made again, a symlink to it
 * re-pointed (`ln -sfn`), or a Kubernetes volume's `..data` link swapped to
 * a new folder. Its events then stop, silently. So the watcher also watches,
 * one entry each (fs.watch, not recursive), the folder holding it (for its
 * own name), the real folder's parent when it is a symlink, and the real
 * folder (for `..data`); on any of those, after a watcher error and every
 * `checkEveryMs`, it looks where the folder is now (place). Moved, made
 * again or gone, it watches the new place (or waits for the folder to come
 * back), logs that, and reloads everything: a gone folder is a load that
 * fails with DEFINITIONS_DIR_MISSING, so the last good snapshot keeps
 * serving.
 *
 * Watching the tree (at the start, or again) fails when a folder found by
 * its crawl is gone before it is watched: a path that vanished (vanishedPath)
 * is a change of the tree, not a failure, and is logged at debug level; the
 * tree is watched again once it settles (VANISHED_RETRY_MAX_MS) and reloaded
 * whole. Any other failure is a warning, and the folder checks try again.
 *
 * `tree`: how the tree is watched (tree-watcher.ts): @parcel/watcher, or
 * Node's recursive fs.watch when parcel cannot load, or null when neither
 * can watch: then only the folder checks and SIGHUP reload.
 */
export async function watchDefinitions(
  registry: DefinitionsRegistry,
  logger: Logger,
  debounceMs = RELOAD_DEBOUNCE_MS,
  checkEveryMs = FOLDER_CHECK_MS,
  tree?: TreeWatcher | null,
): Promise<() => Promise<void>> {
  const treeWatcher = tree === undefined ? await loadTreeWatcher(logger) : tree;
  const dir = path.resolve(registry.dir);
  /** Where the tree is watched; null while the folder is missing. */
  let place: Place | null = null;
  /** The one-entry watches that see the folder replaced, by what they watch (see anchor). */
  let anchors = new Map<string, FSWatcher>();
  let anchorsBroken = false;
  let checkTimer: NodeJS.Timeout | null = null;
  /** Why the next check runs, and whether it watches anew even if the folder looks the same. */
  let checkWhy = '';
  let checkForced = false;
  let timer: NodeJS.Timeout | null = null;
  /** The files changed in this window; null once something happened that only a full reload is sure about. */
  let changed: Set<string> | null = new Set();
  /** A folder appeared in this window: watch the tree anew before the reload. */
  let rewatch = false;
  let subscription: TreeSubscription | null = null;
  /** The folder `subscription` watches. */
  let subscribedRoot: string | null = null;
  /** Watches of folders the definitions moved away from, by folder, until that folder is removed (retire). */
  const retired = new Map<string, { subscription: TreeSubscription; timer: NodeJS.Timeout }>();
  /** The latest restart of watching; the next one and stop wait for it. */
  let restarting: Promise<void> = Promise.resolve();
  let closed = false;

  /** The folder was replaced: the reload waits for the tree to be quiet for REPLACED_QUIET_MS, not debounceMs (see there). */
  let replacing = false;
  /** Starts of watching in a row that failed on a path that vanished, and since when (see VANISHED_RETRY_MAX_MS). */
  let vanished = { tries: 0, since: 0, said: false };
  const wait = () => {
    const quiet = replacing ? Math.max(debounceMs, REPLACED_QUIET_MS) : debounceMs;
    return vanished.tries ? Math.max(quiet, Math.min(debounceMs * 2 ** (vanished.tries - 1), VANISHED_RETRY_MAX_MS)) : quiet;
  };
  const changedSince = (file: string | null, reason: string, newFolder = false, replaced = false) => {
    // A classification that was under way when watching stopped.
    if (closed) return;
    if (changed && file) changed.add(file);
    else changed = null;
    if (newFolder) rewatch = true;
    if (replaced) replacing = true;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      replacing = false;
      const paths = changed;
      changed = new Set();
      if (rewatch) {
        rewatch = false;
        restarting = restarting.then(() => watchAgain(reason));
      }
      // After any restart of watching: the full reload it comes with reads what was written meanwhile.
      void restarting.then(() => {
        if (!closed) void registry.reload(reason, paths ? [...paths] : undefined);
      });
    }, wait());
  };

  /** Paths seen created or changed as files whose names are not a definition file's: their deletion is a file's too. */
  let seenFiles = new Set<string>();
  /** `root`: the real folder the event was seen under; the reload is told the path under the definitions folder. */
  const onEvent = async (root: string, event: TreeEvent) => {
    const file = root === dir ? event.path : movedPath(event.path, root, dir);
    const relative = path.relative(dir, file);
    if (relative === '') {
      // The watched folder itself (removed, say): where is it now? (Often an old folder's last word, after its replacement was watched.)
      scheduleCheck(`${VERBS[event.type]} of the watched folder`);
      return;
    }
    const definition = isDefinitionPath(relative.split(path.sep).join('/'));
    let folder: boolean;
    if (event.type === 'delete') {
      folder = !definition && !seenFiles.delete(file);
    } else {
      // Gone again by the time it is looked at, a path created or changed left nothing behind (a temporary file
      // renamed over a definition, as `sed -i` and some editors save, shows up as the definition's own event).
      const stat = await fs.lstat(event.path).catch(() => null);
      folder = stat?.isDirectory() ?? false;
      if (!folder && !definition) {
        // Bounded: a long-running gateway must not keep every temporary name it ever saw.
        if (seenFiles.size >= SEEN_FILES_MAX) seenFiles = new Set();
        seenFiles.add(file);
      }
    }
    logger.debug({ event: event.type, file, folder }, 'definitions changed');
    changedSince(folder ? null : file, `${VERBS[event.type]} ${folder ? 'folder ' : ''}${relative}`, folder && event.type === 'create');
  };
  /** Events are looked at one after another, in the order reported: a temporary file's creation before its deletion. */
  let handling: Promise<void> = Promise.resolve();
  const onEvents = (root: string, error: Error | null, events: TreeEvent[]) => {
    if (retired.has(root)) {
      // A folder the definitions left: nothing of it is read any more. Its own deletion is the moment to unwatch it.
      if (error || events.some((event) => event.type === 'delete' && path.resolve(event.path) === root)) void unwatchRetired(root);
      return;
    }
    if (error) {
      logger.warn({ err: error, dir, root }, 'watching definitions failed; SIGHUP still reloads');
      // Events may have been lost: the next reload reads everything, from wherever the folder is now.
      changedSince(null, 'watcher error');
      scheduleCheck('watcher error', true);
      return;
    }
    handling = handling.then(async () => {
      for (const event of events) await onEvent(root, event);
    });
  };
  /**
   * Watching starts; a watcher that fails (no inotify watches left, say) must not stop the gateway from starting.
   * 'vanished': it could not start because a path under `root` vanished while it did (see VANISHED_RETRY_MAX_MS).
   */
  const watch = async (root: string): Promise<TreeSubscription | 'vanished' | null> => {
    if (!treeWatcher) return null;
    try {
      const held = await treeWatcher.subscribe(root, (error, events) => onEvents(root, error, events));
      vanished = { tries: 0, since: 0, said: false };
      return held;
    } catch (error) {
      if (vanishedPath(error)) {
        if (!vanished.tries) vanished.since = Date.now();
        vanished.tries++;
        if (Date.now() - vanished.since < VANISHED_WARN_MS || vanished.said) {
          logger.debug({ err: error, dir, root, tries: vanished.tries }, 'a path vanished while the definitions tree was being watched: watching again once it settles');
          return 'vanished';
        }
        // A tree that changes for a minute on end, or a path that vanishes and is never there: said once, still tried.
        vanished.said = true;
        logger.warn({ err: error, dir, root, tries: vanished.tries }, 'watching definitions failed: paths under the folder kept vanishing while it was watched, for more than a minute; still trying, and SIGHUP still reloads');
        return 'vanished';
      }
      logger.warn({ err: error, dir, root }, 'watching definitions failed; SIGHUP still reloads');
      return null;
    }
  };
  /** The tree changed under the start of its watch: watch it again once it settles, and reload everything then. */
  const watchedVanished = (reason: string) => changedSince(null, restarted(reason, 'a path vanished'), true);
  /**
   * Stops watching `root`; a failure is the log's only when the folder is still there (see retire) and it is not
   * that of a folder under it removed before it was unwatched (droppedWatch).
   */
  const unwatch = async (held: TreeSubscription, root: string) => {
    await held.unsubscribe().catch(async (error: unknown) => {
      const gone = !(await fs.lstat(root).catch(() => null));
      if (gone) logger.debug({ err: error, dir, root }, 'the replaced definitions folder was removed while it was unwatched: the kernel dropped its watches with it');
      else if (droppedWatch(error)) logger.debug({ err: error, dir, root }, 'a folder under the definitions was removed before it was unwatched: the kernel dropped its watch with it');
      else logger.warn({ err: error, dir, root }, 'unwatching definitions failed');
    });
  };
  /**
   * The watch of a folder the definitions moved away from (a ConfigMap's `..data` swapped, a symlink
   * re-pointed, the folder made again) is kept until that folder is removed, its events ignored. Unwatched
   * at once, it raced the removal (the kubelet removes the old folder right after the swap): the inotify
   * watches of folders already removed are gone from the kernel, and @parcel/watcher's unsubscribe stopped
   * at the first one it could not remove ("Unable to remove watcher: Invalid argument"), keeping the rest
   * of that tree's watches in its tables. Once parcel has reported the folder's own deletion it has
   * dropped the watches of everything in it, and the unsubscribe has nothing left to remove. A folder
   * still there after RETIRED_WATCH_MS (a symlink re-pointed, the old folder kept) is unwatched then.
   */
  const retire = (held: TreeSubscription, root: string) => {
    const timer = setTimeout(() => void unwatchRetired(root), RETIRED_WATCH_MS);
    timer.unref();
    retired.set(root, { subscription: held, timer });
  };
  const unwatchRetired = async (root: string) => {
    const entry = retired.get(root);
    if (!entry) return;
    retired.delete(root);
    clearTimeout(entry.timer);
    await unwatch(entry.subscription, root);
  };
  /** Watches the tree of `place` anew (none while the folder is missing). */
  const watchAgain = async (reason: string) => {
    if (closed) return;
    const since = Date.now() - CLOCK_TICK_MS;
    const root = place?.root ?? null;
    const [previous, previousRoot] = [subscription, subscribedRoot];
    subscription = null;
    subscribedRoot = null;
    // parcel keeps one folder tree per watched folder while it is subscribed: only a new subscription crawls again.
    if (previous && previousRoot === root) await unwatch(previous, previousRoot!);
    // Set before the new watch starts, so no late event of the old folder is taken for the new one's.
    else if (previous && previousRoot) retire(previous, previousRoot);
    // A folder made again where one was retired: that one goes first (its events and the new one's share the path).
    if (root && retired.has(root)) await unwatchRetired(root);
    const watched = closed || !root ? null : await watch(root);
    if (watched === 'vanished') return watchedVanished(reason);
    subscription = watched;
    if (subscription) subscribedRoot = root;
    if (subscription && root && (await foldersChangedSince(root, since))) changedSince(null, restarted(reason, 'changed'), true);
  };

  /** Looks where the folder is once events settle (RELOAD_DEBOUNCE_MS), once for a burst of them. */
  const scheduleCheck = (why: string, forced = false) => {
    if (closed) return;
    checkForced ||= forced;
    if (checkTimer) return;
    checkWhy = why;
    checkTimer = setTimeout(() => {
      checkTimer = null;
      const [reason, again] = [checkWhy, checkForced];
      checkForced = false;
      restarting = restarting.then(() => relocate(reason, again)).catch((error: unknown) => logger.warn({ err: error, dir, reason }, 'looking for the definitions folder failed'));
    }, debounceMs);
  };
  /** Watches wherever the folder is now, if it moved, was made again or is gone (or `forced`), and reloads everything. */
  const relocate = async (why: string, forced: boolean) => {
    if (closed) return;
    const now = await locate(dir);
    const moved = now?.key !== place?.key;
    // A watch that could not start is tried again at each check (one that a vanished path stopped is already to be tried again).
    const retry = !!now && !subscription && !!treeWatcher && !rewatch;
    if (!moved && !forced && !retry) {
      if (anchorsBroken) anchor(now);
      return;
    }
    if (!now && !place) return;
    const previous = place?.root ?? null;
    place = now;
    anchor(now);
    await watchAgain(why);
    // Replaced again before its watches were set: their events were missed, so look once more.
    if ((await locate(dir))?.key !== now?.key) scheduleCheck(`${why}, and again while it was watched anew`);
    // Still not watching the same folder: watch() logged why; nothing was missed that a reload would read.
    if (!moved && !forced && !subscription) return;
    if (now) logger.info({ dir, root: now.root, previous, reason: why }, 'watching the definitions folder anew');
    else logger.warn({ dir, previous, reason: why }, 'definitions folder is missing: the last good snapshot, if any, keeps serving until it is back');
    changedSince(null, now ? `definitions folder replaced (${why})` : 'definitions folder missing', false, now !== null);
  };
  /** One entry watched in `folder`: the folder holding DEFINITIONS_DIR or its real folder, or the real folder (for `..data`). */
  const anchorIn = (folder: string, name: string): FSWatcher | null => {
    try {
      const watcher = watchEntries(folder, { persistent: false }, (eventType, filename) => {
        if (filename === null || filename === name) scheduleCheck(`${eventType} of ${path.join(folder, name)}`, eventType === 'rename' && name !== VOLUME_DATA_LINK);
      });
      watcher.on('error', (error) => {
        logger.warn({ err: error, dir, folder }, 'watching for the definitions folder to be replaced failed; checking every few seconds');
        watcher.close();
        for (const [key, held] of anchors) if (held === watcher) anchors.delete(key);
        anchorsBroken = true;
      });
      return watcher;
    } catch (error) {
      // A folder that is not there: the periodic check looks again.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') logger.warn({ err: error, dir, folder }, 'watching for the definitions folder to be replaced failed; checking every few seconds');
      anchorsBroken = true;
      return null;
    }
  };
  /**
   * The one-entry watches for `at`. One still wanted is kept, not made
   * again: an event between closing and opening it would be missed; one
   * missing (its folder was not there, or it failed) is tried again. The
   * watch in the real folder belongs to that folder (its key), since a
   * folder made again under the same name is another one.
   */
  const anchor = (at: Place | null) => {
    if (closed) return;
    const wanted: [string, string, string][] = [[path.dirname(dir), path.basename(dir), '']];
    if (at && at.real !== dir) wanted.push([path.dirname(at.real), path.basename(at.real), '']);
    if (at) wanted.push([at.real, VOLUME_DATA_LINK, at.folder]);
    const keys = new Set(wanted.map(([folder, name, of]) => `${folder}\0${name}\0${of}`));
    for (const [key, watcher] of anchors) if (!keys.has(key)) watcher.close();
    const kept = new Map([...anchors].filter(([key]) => keys.has(key)));
    // Those that could not be set (or failed since) are tried again.
    anchorsBroken = false;
    for (const [folder, name, of] of wanted) {
      const key = `${folder}\0${name}\0${of}`;
      if (kept.has(key)) continue;
      const watcher = anchorIn(folder, name);
      if (watcher) kept.set(key, watcher);
    }
    anchors = kept;
  };

  place = await locate(dir);
  if (!place) logger.warn({ dir, previous: null, reason: 'start' }, 'definitions folder is missing: the last good snapshot, if any, keeps serving until it is back');
  anchor(place);
  const watched = place ? await watch(place.root) : null;
  if (watched === 'vanished') watchedVanished('start');
  else subscription = watched;
  if (subscription) subscribedRoot = place!.root;
  const periodic = setInterval(() => scheduleCheck('periodic check'), checkEveryMs);
  periodic.unref();
  return async () => {
    closed = true;
    clearInterval(periodic);
    if (timer) clearTimeout(timer);
    if (checkTimer) clearTimeout(checkTimer);
    for (const watcher of anchors.values()) watcher.close();
    await restarting;
    await Promise.all([...retired.keys()].map(unwatchRetired));
    await subscription?.unsubscribe();
  };
}

/** `reason (what while watching restarted)`, said once however many times watching restarted in a row. */
function restarted(reason: string, what: 'changed' | 'a path vanished'): string {
  return `${reason.replace(/ \((changed|a path vanished) while watching restarted\)/g, '')} (${what} while watching restarted)`;
}

/**
 * Whether watching could not start because a path vanished while it did
 * (ENOENT, or ENOTDIR for a folder a file took the place of). @parcel/watcher's
 * errors carry no code, only strerror's words: its crawl's bare "No such file
 * or directory", "inotify_add_watch on '<folder>' failed: No such file or
 * directory".
 */
function vanishedPath(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return true;
  return error instanceof Error && /(^|: )(No such file or directory|Not a directory)$/.test(error.message);
}

/**
 * Whether stopping a watch failed on a folder's inotify watch the kernel had
 * already dropped, as it does when the folder is removed: inotify_rm_watch's
 * EINVAL, which @parcel/watcher says as "Unable to remove watcher: Invalid
 * argument" (watching again after a folder appeared stops the watch it
 * replaces, whose folders a storm of changes may have removed meanwhile).
 */
function droppedWatch(error: unknown): boolean {
  return error instanceof Error && /^Unable to remove watcher: Invalid argument$/.test(error.message);
}

/** Where the folder `dir` really is now, and which folder that is; null when there is no folder there. */
async function locate(dir: string): Promise<Place | null> {
  const real = await fs.realpath(dir).catch(() => null);
  if (!real) return null;
  const root = await contentRoot(real);
  const stat = await fs.stat(real).catch(() => null);
  if (!stat?.isDirectory()) return null;
  const folder = `${real}\0${identity(stat)}`;
  if (root === real) return { real, root, folder, key: folder };
  const rootStat = await fs.stat(root).catch(() => null);
  return rootStat?.isDirectory() ? { real, root, folder, key: `${folder}\0${root}\0${identity(rootStat)}` } : null;
}

/** Which folder this is: a folder removed and made again under the same name has another inode or birth time. */
function identity(stat: Stats): string {
  return `${stat.dev}:${stat.ino}:${stat.birthtimeMs}`;
}

/** Whether `folder` or one under it (hidden ones aside) had an entry added, removed or renamed at or after `since`. */
async function foldersChangedSince(folder: string, since: number): Promise<boolean> {
  const stat = await fs.lstat(folder).catch(() => null);
  if (!stat?.isDirectory()) return false;
  if (stat.mtimeMs >= since) return true;
  const entries = await fs.readdir(folder, { withFileTypes: true }).catch(() => []);
  // Side by side: the 5,000 folders of 1,000 apps took 0.9-1.2 s one by one, 0.2-0.4 s so.
  const folders = entries.filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'));
  return (await Promise.all(folders.map((entry) => foldersChangedSince(path.join(folder, entry.name), since)))).includes(true);
}

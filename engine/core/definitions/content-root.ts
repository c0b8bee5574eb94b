import fs from 'node:fs/promises';
import path from 'node:path';

/**
 * The name Kubernetes gives the link to the current files of a ConfigMap or
 * Secret volume. The kubelet writes the files in a hidden timestamped folder
 * beside it (`..2026_11_24_01_00_00.123/`), points `..data` at that folder,
 * and adds one symlink per top-level entry through it (`github ->
 * ..data/github`). An update writes a new timestamped folder, renames a new
 * link over `..data` (one atomic step) and removes the old folder.
 */
export const VOLUME_DATA_LINK = '..data';

/**
 * The folder the definitions of `dir` are read from: the real folder
 * `dir/..data` points at when `dir` is a Kubernetes volume, else `dir`.
 *
 * A loader reads no symlinked folder (a recursive listing does not descend
 * into one), so the top-level links of a volume would be skipped, and
 * reading them one by one could mix two updates. Reading the folder
 * `..data` points at reads one update whole, under the same file names.
 * The link is followed only to a folder directly inside `dir` (where the
 * kubelet puts it); one leading anywhere else is a hidden entry like any
 * other, and is skipped.
 */
export async function contentRoot(dir: string): Promise<string> {
  const target = await fs.realpath(path.join(dir, VOLUME_DATA_LINK)).catch(() => null);
  if (!target) return dir;
  const real = await fs.realpath(dir).catch(() => null);
  if (!real || path.dirname(target) !== real) return dir;
  const stat = await fs.stat(target).catch(() => null);
  return stat?.isDirectory() ? target : dir;
}

/**
 * A path as reported under `from` (absolute, or relative to the working
 * directory), moved to the same place under `to`: what a watcher of the real
 * folder saw, named as the definitions folder's, and the other way round.
 */
export function movedPath(file: string, from: string, to: string): string {
  return path.join(to, path.relative(from, file));
}

import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import { ANALYSIS_FORMAT, engineKey } from './engine-key.ts';
import type { FileSummary } from './file-analysis.ts';
import type { DefinitionPath } from './parsed-file.ts';
import { topName } from './layout.ts';
import type { SourceFile } from './source-files.ts';

/**
 * The on-disk cache of analysed definition files, so that a restart reads
 * the files again but does not parse, validate or check the JSONata of those
 * that did not change.
 *
 * What is cached is a file's FileSummary (file-analysis.ts): the plain data
 * the worker threads already send back, so a summary read from disk becomes a
 * FileAnalysis exactly as one from a worker does (fromSummary). An entry is
 * keyed by the file's path and the sha256 of its text: the summary depends on
 * both (the path places the file and names it in every problem).
 *
 * Layout: `<root>/<first 32 hex of the engine key>/<pack>`, one pack per
 * top-level entry of the definitions folder (an app folder, or a stray file),
 * named by the sha256 of that name. A pack is
 *
 *   PACK_MAGIC | sha256 of the body (32 bytes) | body      (JSON)
 *   PACK_MAGIC_V8 | sha256 of the body (32 bytes) | body   (v8)
 *
 * the body being `{ engine, top, entries: [file, hash, summary][] }`: one read
 * and one parse per app (30 actions: ~30 KB) rather than per file (33,000
 * small reads would cost as much as reading the definitions). It is JSON
 * when JSON gives back every value exactly (jsonFaithful: nearly always),
 * `v8.serialize`'s bytes otherwise (a `.nan`, `.inf`, `-0`, a YAML 1.1 date
 * or binary). JSON because a first start writes every pack: on the 33,000
 * files of docs/benchmarks.md, `v8.serialize` took ~2.4x the CPU of
 * `JSON.stringify` and left ~50 MB more RSS behind it (the serializer's
 * native buffers, freed only after a GC); reading JSON back costs no more.
 *
 * An entry is used only when the pack's bytes match their hash, the pack
 * names this engine's whole key and this top-level name, and the entry names
 * the very path and content hash of the file being loaded. Anything else
 * (a pack torn by kill -9 mid-write, a corrupt or truncated one, one from
 * another engine or another app, an entry for other content) is a miss: the
 * file is analysed, and the pack written again. Never a crash: reading the
 * cache throws nothing.
 *
 * Writes are atomic (a temp file in the same folder, then rename), so two
 * gateways sharing the folder each read a whole pack, theirs or the other's;
 * the last rename wins, and every entry still carries its own key.
 *
 * Bounded: a pack holds only the files its app folder has now (an edited
 * file's old entry is dropped when the pack is written again). prune() removes
 * what no full load used for PRUNE_AFTER_MS: packs of apps no longer loaded,
 * the folders of other engine versions, temp files left by a killed writer.
 */
export class AnalysisCache {
  /** This engine's folder. */
  readonly dir: string;

  constructor(
    readonly root: string,
    readonly engine: string = engineKey(),
    /** Told when the cache cannot be written or pruned (a read-only DATA_DIR): the load goes on without it. */
    private readonly onError: (error: unknown, doing: string) => void = () => undefined,
  ) {
    this.dir = path.join(root, engine.slice(0, 32));
  }

  /**
   * The cached summaries of `sources`, those that have one. Reads one pack
   * per top-level name among them, letting the event loop turn every few
   * milliseconds (a reload runs while requests are served).
   */
  async lookup(sources: readonly SourceFile[]): Promise<Map<SourceFile, FileSummary>> {
    const hits = new Map<SourceFile, FileSummary>();
    let sliceStart = performance.now();
    for (const [top, group] of byTop(sources)) {
      if (performance.now() - sliceStart > SLICE_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        sliceStart = performance.now();
      }
      const pack = this.read(top);
      if (!pack) continue;
      for (const source of group) {
        const entry = pack.get(source.file);
        if (entry && entry.hash === source.hash) hits.set(source, entry.summary);
      }
    }
    return hits;
  }

  /**
   * Writes the pack of each top-level name in `tops`: an entry for each of
   * its current `files` (sorted by path) whose summary is `fresh` (made by
   * this load) or already in its pack for that same content. A summary of a
   * failed analysis (ANALYSIS_FAILED: a worker out of memory, a bug) is never
   * written: the next load tries again.
   */
  async write(tops: Iterable<[top: string, files: readonly SourceFile[]]>, fresh: ReadonlyMap<string, { hash: string; summary: FileSummary }>): Promise<void> {
    let sliceStart = performance.now();
    for (const [top, files] of tops) {
      if (performance.now() - sliceStart > SLICE_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        sliceStart = performance.now();
      }
      const existing = this.read(top);
      const entries: PackEntry[] = [];
      let changed = false;
      for (const source of files) {
        const made = fresh.get(source.file);
        if (made && made.hash === source.hash && cacheable(made.summary)) {
          entries.push([source.file, source.hash, stored(made.summary)]);
          changed = true;
          continue;
        }
        const kept = existing?.get(source.file);
        if (kept && kept.hash === source.hash) entries.push([source.file, source.hash, stored(kept.summary)]);
      }
      // Nothing new: the pack (if any) still serves; it is not rewritten only to drop old entries.
      if (!changed) continue;
      try {
        this.writePack(top, entries);
      } catch (error) {
        this.reportError(error, `writing ${this.packPath(top)}`);
        return;
      }
    }
  }

  /**
   * After a full load: the packs of `tops` (what the folder holds now) are
   * marked used (their modification time set to now); anything else under
   * the root not used for PRUNE_AFTER_MS is removed, other engines' folders
   * included (a folder is removed once empty).
   */
  async prune(tops: Iterable<string>, now = Date.now()): Promise<void> {
    const keep = new Set<string>();
    const at = new Date(now);
    for (const top of tops) {
      const name = packName(top);
      keep.add(name);
      try {
        fs.utimesSync(path.join(this.dir, name), at, at);
      } catch {
        // No pack for it (not written yet, or not cacheable): nothing to mark.
      }
    }
    const folders = await fs.promises.readdir(this.root, { withFileTypes: true }).catch(() => []);
    for (const folder of folders) {
      if (!folder.isDirectory()) continue;
      const dir = path.join(this.root, folder.name);
      const mine = dir === this.dir;
      const names = await fs.promises.readdir(dir).catch(() => [] as string[]);
      let left = names.length;
      for (const name of names) {
        if (mine && keep.has(name)) continue;
        const file = path.join(dir, name);
        try {
          const { mtimeMs } = await fs.promises.stat(file);
          if (now - mtimeMs < PRUNE_AFTER_MS) continue;
          await fs.promises.rm(file, { force: true });
          left--;
        } catch (error) {
          // Removed meanwhile by another gateway: gone all the same.
          if ((error as NodeJS.ErrnoException).code === 'ENOENT') left--;
          else this.reportError(error, `pruning ${file}`);
        }
      }
      if (!mine && left === 0) await fs.promises.rmdir(dir).catch(() => undefined);
    }
  }

  /** What the cache could not do, for the log; the cache goes on (or not) without it. */
  reportError(error: unknown, doing: string): void {
    try {
      this.onError(error, doing);
    } catch {
      // A reporter that throws must not stop a load.
    }
  }

  /** Where the pack of a top-level name is. */
  packPath(top: string): string {
    return path.join(this.dir, packName(top));
  }

  /** The valid entries of a pack, by path; null when there is no pack or it is not a whole, matching one. */
  private read(top: string): Map<string, { hash: string; summary: FileSummary }> | null {
    let bytes: Buffer;
    try {
      bytes = fs.readFileSync(this.packPath(top));
    } catch {
      return null;
    }
    const magic = startsWith(bytes, PACK_MAGIC) ? PACK_MAGIC : startsWith(bytes, PACK_MAGIC_V8) ? PACK_MAGIC_V8 : null;
    if (!magic) return null;
    const bodyAt = magic.length + DIGEST_BYTES;
    if (bytes.length <= bodyAt) return null;
    const body = bytes.subarray(bodyAt);
    if (!createHash('sha256').update(body).digest().equals(bytes.subarray(magic.length, bodyAt))) return null;
    let pack: unknown;
    try {
      pack = magic === PACK_MAGIC ? JSON.parse(body.toString('utf8')) : v8.deserialize(body);
    } catch {
      return null;
    }
    if (!isPack(pack) || pack.engine !== this.engine || pack.top !== top) return null;
    const entries = new Map<string, { hash: string; summary: FileSummary }>();
    for (const entry of pack.entries) {
      if (!isEntry(entry)) continue;
      const summary = restored(entry[2]);
      if (summary) entries.set(entry[0], { hash: entry[1], summary });
    }
    return entries;
  }

  private writePack(top: string, entries: PackEntry[]): void {
    const pack = { engine: this.engine, top, entries };
    const json = jsonFaithful(entries, 0);
    // A string is hashed and written as UTF-8 without a Buffer of its own (JSON.stringify escapes lone surrogates).
    const body: string | Buffer = json ? JSON.stringify(pack) : v8.serialize(pack);
    const digest = createHash('sha256').update(body).digest();
    const target = this.packPath(top);
    const temp = `${target}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    try {
      // Three writes rather than one of the parts concatenated: no copy of the pack's bytes.
      const fd = fs.openSync(temp, 'wx', 0o600);
      try {
        fs.writeSync(fd, json ? PACK_MAGIC : PACK_MAGIC_V8);
        fs.writeSync(fd, digest);
        writeWhole(fd, body);
      } finally {
        fs.closeSync(fd);
      }
      fs.renameSync(temp, target);
    } catch (error) {
      fs.rmSync(temp, { force: true });
      throw error;
    }
  }
}

/** A pack's first bytes: what it is and its layout's version; its body JSON. */
export const PACK_MAGIC = Buffer.from(`igw definitions analyses ${ANALYSIS_FORMAT}\n`);
/** The first bytes of a pack whose body is `v8.serialize`'s (a value JSON cannot give back, see jsonFaithful). */
export const PACK_MAGIC_V8 = Buffer.from(`igw definitions analyses ${ANALYSIS_FORMAT} v8\n`);

function startsWith(bytes: Buffer, magic: Buffer): boolean {
  return bytes.length >= magic.length && bytes.subarray(0, magic.length).equals(magic);
}

/** Writes all of `body` (a string as UTF-8): writeSync may write less than it was given. */
function writeWhole(fd: number, body: string | Buffer): void {
  let bytes = typeof body === 'string' ? null : body;
  if (bytes === null) {
    const text = body as string;
    const written = fs.writeSync(fd, text);
    if (written === Buffer.byteLength(text)) return;
    // Rare (a full disk would throw instead): the rest from a Buffer.
    bytes = Buffer.from(text).subarray(written);
  }
  let at = 0;
  while (at < bytes.length) at += fs.writeSync(fd, bytes, at);
}

/** Deeper than this, a value is written with v8 (which also keeps a cycle an alias may make). */
const JSON_MAX_DEPTH = 200;

/**
 * Whether `JSON.parse(JSON.stringify(value))` is `value` again, as deep
 * equality sees it: only strings, booleans, null, finite numbers other than
 * -0, arrays without holes and plain objects (an own `__proto__` key is
 * kept: JSON.parse makes it an own property). Not NaN, the infinities or -0
 * (YAML's `.nan`, `.inf`, `-0`), a Date or bytes (YAML 1.1's timestamps and
 * `!!binary`), undefined, or anything nested deeper than JSON_MAX_DEPTH.
 */
function jsonFaithful(value: unknown, depth: number): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value) && !Object.is(value, -0);
    case 'object': {
      if (value === null) return true;
      if (depth >= JSON_MAX_DEPTH) return false;
      if (Array.isArray(value)) {
        if (Object.getPrototypeOf(value) !== Array.prototype) return false;
        for (let i = 0; i < value.length; i++) if (!(i in value) || !jsonFaithful(value[i], depth + 1)) return false;
        return true;
      }
      if (Object.getPrototypeOf(value) !== Object.prototype) return false;
      const record = value as Record<string, unknown>;
      for (const key in record) if (!jsonFaithful(record[key], depth + 1)) return false;
      return true;
    }
    default:
      return false;
  }
}
const DIGEST_BYTES = 32;

/** Packs and temp files no full load used for this long are removed by prune(). */
export const PRUNE_AFTER_MS = 60 * 60 * 1000;

/** How long the cache reads or writes before it lets the event loop turn. */
const SLICE_MS = 8;

type PackEntry = [file: string, hash: string, summary: StoredSummary];

/**
 * A FileSummary as a pack holds it: each expression by its path alone, its
 * text being the string at that path of the value (expressionsOf found it
 * there). A 1,000 x 30 tree's response mappings and mappers are ~19% of its
 * summaries' bytes, which would be read and deserialized twice.
 */
type StoredSummary = Omit<FileSummary, 'expressions'> & { expressions: DefinitionPath[] };

function stored(summary: FileSummary): StoredSummary {
  return { ...summary, expressions: summary.expressions.map(([path]) => path) };
}

/** The FileSummary a stored one stands for; null when an expression's path does not lead to a string of the value. */
function restored(summary: StoredSummary): FileSummary | null {
  const expressions: [DefinitionPath, string][] = [];
  for (const path of summary.expressions) {
    if (!Array.isArray(path)) return null;
    let value: unknown = summary.value;
    for (const segment of path) value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[segment as string] : undefined;
    if (typeof value !== 'string') return null;
    expressions.push([path, value]);
  }
  return { ...summary, expressions };
}

export function packName(top: string): string {
  return `${createHash('sha256').update(top).digest('hex').slice(0, 32)}.pack`;
}

/** `sources` by top-level name, in the order of their first file. */
function byTop(sources: readonly SourceFile[]): Map<string, SourceFile[]> {
  const groups = new Map<string, SourceFile[]>();
  for (const source of sources) {
    const top = topName(source.file);
    const group = groups.get(top);
    if (group) group.push(source);
    else groups.set(top, [source]);
  }
  return groups;
}

function cacheable(summary: FileSummary): boolean {
  return !summary.problems.some((problem) => problem.code === 'ANALYSIS_FAILED');
}

function isPack(value: unknown): value is { engine: string; top: string; entries: unknown[] } {
  const pack = value as { engine?: unknown; top?: unknown; entries?: unknown } | null;
  return typeof pack === 'object' && pack !== null && typeof pack.engine === 'string' && typeof pack.top === 'string' && Array.isArray(pack.entries);
}

/** The shape fromSummary reads; the bytes were checked already, this guards against a pack of a shape not made here. */
function isEntry(value: unknown): value is PackEntry {
  if (!Array.isArray(value) || value.length !== 3 || typeof value[0] !== 'string' || typeof value[1] !== 'string') return false;
  const summary = value[2] as Partial<StoredSummary> | null;
  return (
    typeof summary === 'object' &&
    summary !== null &&
    typeof summary.parsed === 'boolean' &&
    typeof summary.valid === 'boolean' &&
    typeof summary.names === 'object' &&
    summary.names !== null &&
    Array.isArray(summary.expressions) &&
    Array.isArray(summary.problems)
  );
}

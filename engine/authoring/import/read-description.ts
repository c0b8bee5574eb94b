import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import $RefParser from '@apidevtools/json-schema-ref-parser';
import { upgrade } from '@scalar/openapi-upgrader';
import { LineCounter, parseDocument } from 'yaml';
import { fastValue, firstLine as yamlFirstLine } from '../../core/definitions/parsed-file.ts';
import { aliasProblem, MAX_ALIASES } from '../../core/definitions/yaml-aliases.ts';
import { descriptionBytes, descriptionText, unreadable } from './description-file.ts';
import { ImportError } from './import-error.ts';
import { isObj, isRef, obj, str, type Obj } from './json-access.ts';

/**
 * What one import may read. A description is a stranger's file: these bound
 * the bytes, the files its `$ref`s may pull in, what YAML aliases may expand
 * to, and how long resolving may take. A 1,000-operation description is a
 * few megabytes; the bounds are far above any real one.
 */
export const DESCRIPTION_LIMITS = {
  /** One file, the description or a file it refers to. */
  bytes: 64 * 1024 * 1024,
  /** Files read through external `$ref`s. */
  files: 10_000,
  /** All of them together. */
  totalBytes: 256 * 1024 * 1024,
  /** YAML aliases in one file, and the values they may expand it to (yaml-aliases.ts). */
  aliases: MAX_ALIASES,
  expandedValues: 5_000_000,
  /** Resolving every `$ref`. */
  resolveMs: 60_000,
};

export type SourceFormat = 'Swagger 2.0' | 'OpenAPI 3.0' | 'OpenAPI 3.1';

/** A description read, its external files pulled in, converted to OpenAPI 3.1, and every `$ref` resolved but circular ones. */
export interface Description {
  /** The file as given on the command line. */
  file: string;
  format: SourceFormat;
  /** As written in the file (`3.0.3`, `2.0`). */
  declaredVersion: string;
  /** OpenAPI 3.1; a circular `$ref` stays a `{ $ref }` object (json-access.ts isRef). */
  document: Obj;
}

/**
 * Reads `file` (JSON or YAML) as an OpenAPI description: Swagger 2.0, OpenAPI
 * 3.0 or 3.1. External `$ref`s are read from files inside the description's
 * folder only (never from the network); Swagger 2.0 and OpenAPI 3.0 are
 * converted to 3.1 (@scalar/openapi-upgrader); then every `$ref` is resolved
 * (@apidevtools/json-schema-ref-parser), circular ones left in place.
 * Throws ImportError, one line, for anything that is not a readable
 * description: a file that is not a regular file (a FIFO, a folder) or not
 * UTF-8 text is FILE_UNREADABLE (description-file.ts).
 */
export async function readDescription(file: string): Promise<Description> {
  const absolute = path.resolve(file);
  const read = await descriptionBytes(absolute, DESCRIPTION_LIMITS.bytes);
  if ('missing' in read) throw new ImportError(`${file}: no such file`);
  if ('tooLarge' in read) throw new ImportError(`${file} is ${megabytes(read.tooLarge)}; the importer reads descriptions of at most ${megabytes(DESCRIPTION_LIMITS.bytes)}`);
  if (!('bytes' in read)) throw unreadable(file, read);
  const root = parseText(descriptionText(read.bytes, file), file);
  if (!isObj(root)) throw new ImportError(`${file} is not an OpenAPI description: it is not a mapping with an openapi or swagger field`);
  const { format, declaredVersion } = formatOf(root, file);
  if (!isObj(root.paths) || Object.keys(root.paths).length === 0) throw new ImportError(`${file} has no paths: there is no operation to import`);

  let document: Obj = root;
  const folder = await fs.realpath(path.dirname(absolute));
  const reader = new ExternalFiles(folder, file);
  if (externalRefs(document, file)) document = (await resolving(file, reader, () => new $RefParser().bundle(absolute, document as never, reader.options()))) as Obj;
  if (format === 'Swagger 2.0') inlineParameterRefs(document);
  if (format !== 'OpenAPI 3.1') {
    try {
      document = upgrade(document, '3.1') as unknown as Obj;
    } catch (error) {
      // A schema nested deeper than the converter's stack reaches: in the importer's words, as the resolver's below.
      if (error instanceof RangeError) throw new ImportError(`${file} is nested too deeply to convert from ${format} to OpenAPI 3.1`);
      throw new ImportError(`${file} cannot be converted from ${format} to OpenAPI 3.1: ${firstLine(error)}`);
    }
  }
  document = (await resolving(file, reader, () =>
    new $RefParser().dereference(absolute, document as never, {
      ...reader.options(),
      resolve: { external: false, http: false },
      dereference: { circular: 'ignore' },
      timeoutMs: DESCRIPTION_LIMITS.resolveMs,
    }),
  )) as Obj;
  return { file, format, declaredVersion, document };
}

function formatOf(root: Obj, file: string): { format: SourceFormat; declaredVersion: string } {
  const swagger = root.swagger;
  if (swagger === '2.0' || swagger === 2) return { format: 'Swagger 2.0', declaredVersion: '2.0' };
  const openapi = str(root.openapi);
  if (openapi && /^3\.0(\.\d+)?$/.test(openapi)) return { format: 'OpenAPI 3.0', declaredVersion: openapi };
  if (openapi && /^3\.1(\.\d+)?$/.test(openapi)) return { format: 'OpenAPI 3.1', declaredVersion: openapi };
  if (openapi !== undefined || swagger !== undefined) {
    throw new ImportError(`${file} is ${openapi !== undefined ? `OpenAPI ${String(root.openapi)}` : `Swagger ${String(swagger)}`}: the importer reads Swagger 2.0, OpenAPI 3.0 and OpenAPI 3.1`);
  }
  throw new ImportError(`${file} is not an OpenAPI description: it has neither an openapi: 3.x nor a swagger: "2.0" field at its top`);
}

/**
 * The value of a description file: JSON when it starts as JSON, YAML
 * otherwise, with YAML aliases bounded by the definitions loader's check, at
 * DESCRIPTION_LIMITS (a description may be far larger than a definition file;
 * an alias bomb is refused before it is expanded).
 */
export function parseText(raw: string, where: string): unknown {
  const text = raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw;
  try {
    if (/^\s*[{[]/.test(text)) {
      try {
        return JSON.parse(text) as unknown;
      } catch (error) {
        // YAML's flow style also opens with { or [: only a text YAML cannot read either is reported as JSON.
        if (!(error instanceof SyntaxError)) throw error;
        return parseYaml(text, where, `${where} is not valid JSON: ${error.message}`);
      }
    }
    return parseYaml(text, where);
  } catch (error) {
    if (error instanceof ImportError) throw error;
    // A file nested deeper than the parsers' stacks reach.
    if (error instanceof RangeError) throw new ImportError(`${where} is nested too deeply to read`);
    throw error;
  }
}

function parseYaml(text: string, where: string, asJson?: string): unknown {
  const fast = fastValue(text);
  if (fast.ok) return fast.value;
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: false });
  const at = (offset: number) => {
    const { line, col } = lines.linePos(offset);
    return `${where}:${line}:${col}`;
  };
  if (document.errors.length) {
    const error = document.errors[0]!;
    throw new ImportError(asJson ?? `${at(error.pos[0])} is not valid YAML: ${yamlFirstLine(error.message)}`);
  }
  const refused = aliasProblem(document, { aliases: DESCRIPTION_LIMITS.aliases, expandedValues: DESCRIPTION_LIMITS.expandedValues });
  if (refused) throw new ImportError(`${at(refused.offset)} ${refused.message}`);
  return document.toJS({ maxAliasCount: -1 }) as unknown;
}

/** Files that `$ref`s name: only inside the description's folder, each bounded, all counted. */
class ExternalFiles {
  private files = 0;
  private bytes = 0;
  /** The first refusal: the resolver wraps what its readers and parsers throw in errors of its own. */
  failure: ImportError | undefined;

  constructor(
    private readonly folder: string,
    private readonly file: string,
  ) {}

  options() {
    return {
      resolve: {
        http: false,
        file: { order: 1, canRead: true, read: (info: { url: string }) => this.noted(() => this.read(info.url)) },
      },
      parse: {
        json: false,
        yaml: false,
        text: false,
        binary: false,
        description: { order: 1, canParse: true, allowEmpty: false, parse: (info: { url: string; data: unknown }) => this.noted(() => parseText(String(info.data), this.shown(info.url))) },
      },
    };
  }

  private noted<T>(run: () => T): T {
    try {
      const result = run();
      if (result instanceof Promise) return result.catch((error: unknown) => this.note(error)) as T;
      return result;
    } catch (error) {
      return this.note(error);
    }
  }

  private note(error: unknown): never {
    if (error instanceof ImportError) this.failure ??= error;
    throw error;
  }

  private shown(url: string): string {
    return path.relative(process.cwd(), toPath(url)) || url;
  }

  private async read(url: string): Promise<string> {
    const target = await fs.realpath(toPath(url)).catch(() => null);
    if (target === null) throw new ImportError(`${this.file}: $ref to ${this.shown(url)}, which does not exist`);
    const inside = path.relative(this.folder, target);
    if (inside.startsWith('..') || path.isAbsolute(inside)) {
      throw new ImportError(`${this.file}: $ref to ${this.shown(url)}, outside the description's folder ${path.relative(process.cwd(), this.folder) || '.'}; the importer reads only files beside the description`);
    }
    const read = await descriptionBytes(target, DESCRIPTION_LIMITS.bytes);
    if ('missing' in read) throw new ImportError(`${this.file}: $ref to ${this.shown(url)}, which does not exist`);
    if ('notFile' in read) throw new ImportError(`${this.file}: $ref to ${this.shown(url)}, which is not a file (${read.notFile})`);
    if ('tooLarge' in read) throw new ImportError(`${this.shown(url)} is ${megabytes(read.tooLarge)}; the importer reads files of at most ${megabytes(DESCRIPTION_LIMITS.bytes)}`);
    if ('failed' in read) throw unreadable(this.shown(url), read);
    if (++this.files > DESCRIPTION_LIMITS.files) throw new ImportError(`${this.file} refers to more than ${DESCRIPTION_LIMITS.files} files`);
    this.bytes += read.bytes.length;
    if (this.bytes > DESCRIPTION_LIMITS.totalBytes) throw new ImportError(`${this.file} and the files it refers to are more than ${megabytes(DESCRIPTION_LIMITS.totalBytes)}`);
    return descriptionText(read.bytes, this.shown(url));
  }
}

function toPath(url: string): string {
  return url.startsWith('file:') ? fileURLToPath(url) : decodeURIComponent(url);
}

/**
 * Whether the description refers to other files; a reference to the network
 * is refused (one line naming it and where it is): the importer never
 * fetches. An explicit stack: a deep description must not overflow this one.
 */
function externalRefs(document: Obj, file: string): boolean {
  let external = false;
  const stack: [unknown, string][] = [[document, '#']];
  while (stack.length) {
    const [value, where] = stack.pop()!;
    if (Array.isArray(value)) {
      value.forEach((item, i) => stack.push([item, `${where}/${i}`]));
      continue;
    }
    if (!isObj(value)) continue;
    const ref = str(value.$ref);
    if (ref !== undefined && !ref.startsWith('#')) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(ref) && !ref.startsWith('file:') || ref.startsWith('//')) {
        throw new ImportError(`${file}: $ref "${ref}" at ${where} is on the network; the importer reads only local files: save it beside the description and refer to it by a relative path`);
      }
      external = true;
    }
    for (const [key, item] of Object.entries(value)) stack.push([item, `${where}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`]);
  }
  return external;
}

/**
 * Swagger 2.0 parameters given by `$ref` (`#/parameters/body`) are copied
 * into place before the conversion: @scalar/openapi-upgrader 0.4.9 turns a
 * referenced body or formData parameter into a parameter that points at a
 * request body, and the operation's body is lost (inline ones convert well).
 */
function inlineParameterRefs(document: Obj): void {
  for (const item of Object.values(obj(document.paths) ?? {})) {
    if (!isObj(item)) continue;
    for (const holder of [item, ...Object.values(item)]) {
      if (!isObj(holder) || !Array.isArray(holder.parameters)) continue;
      holder.parameters = holder.parameters.map((parameter) => {
        const ref = isRef(parameter) ? str((parameter as Obj).$ref)! : undefined;
        const target = ref?.startsWith('#/') ? pointed(document, ref) : undefined;
        return target === undefined ? parameter : structuredClone(target);
      });
    }
  }
}

function pointed(document: Obj, ref: string): unknown {
  let at: unknown = document;
  for (const token of ref.slice(2).split('/')) {
    const key = decodeURIComponent(token).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isObj(at) || !Object.hasOwn(at, key)) return undefined;
    at = at[key];
  }
  return at;
}

/** Runs the resolver; its failures (a `$ref` that does not resolve, a file it cannot read) become one line. */
async function resolving<T>(file: string, reader: ExternalFiles, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof ImportError) throw error;
    if (reader.failure) throw reader.failure;
    if (error instanceof RangeError && !/dereference depth/.test(error.message)) throw new ImportError(`${file} is nested too deeply to resolve`);
    throw new ImportError(`${file}: ${refMessage(firstLine(error))}`);
  }
}

/** json-schema-ref-parser's wording, in the importer's: the `$ref` and what is wrong with it. */
function refMessage(message: string): string {
  const missing = /Missing \$ref pointer "([^"]*)"\.?\s*(.*)$/.exec(message);
  if (missing) return `$ref "${shortRef(missing[1]!)}" does not resolve${missing[2] ? `: ${missing[2].replace(/\.$/, '')}` : ''}`;
  const invalid = /Invalid \$ref pointer "([^"]*)"/.exec(message);
  if (invalid) return `$ref "${shortRef(invalid[1]!)}" is not a valid JSON pointer`;
  return message;
}

/** The resolver names a pointer with the absolute file it is in; the description's own are shown as written. */
function shortRef(ref: string): string {
  const hash = ref.indexOf('#');
  return hash > 0 && /^(\/|file:|[A-Za-z]:)/.test(ref) ? ref.slice(hash) : ref;
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]!;
}

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(bytes < 10 * 1024 * 1024 ? 1 : 0)} MB`;
}

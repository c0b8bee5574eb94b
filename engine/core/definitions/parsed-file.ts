import { CORE_SCHEMA, load } from 'js-yaml';
import { isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node, type Pair } from 'yaml';
import { problemAt, type DefinitionProblem, type SourceLocation } from './problems.ts';
import { aliasProblem } from './yaml-aliases.ts';
import { duplicateKeyOffsets } from './yaml-duplicate-keys.ts';
import { expressionHint } from './yaml-expression-hint.ts';
import type { SourceFile } from './source-files.ts';
import { isJsonObject } from '../../platform/json-object.ts';

/** A path into a definition, as ajv and the checks name it: ['arguments', 2, 'parent']. */
export type DefinitionPath = readonly (string | number)[];

/** The `yaml` library's view of a file: its node tree and where each line starts. */
interface Positions {
  document: Document.Parsed;
  lines: LineCounter;
}

/**
 * A YAML file's value, able to point at any value found wrong later (by the
 * schema, a check or the JSONata compiler).
 *
 * Positions come from the `yaml` library's node tree, which costs about 3x a
 * plain parse and ~11 KB per file kept. Most files of a catalogue never need
 * one, so the tree is built the first time a position is asked for (a
 * problem, or a runtime error naming the line) and kept from then on.
 */
export class ParsedFile {
  private positions: Positions | null;

  constructor(
    readonly source: SourceFile,
    readonly value: unknown,
    positions: Positions | null = null,
  ) {
    this.positions = positions;
  }

  get file(): string {
    return this.source.file;
  }

  /** The position of the value at `path`, or of its nearest existing ancestor when it is missing. */
  locate(path: DefinitionPath): SourceLocation {
    return this.position(this.nodeAt(path)?.range?.[0] ?? 0);
  }

  /** The position of the key of the property at `path` (for "this property is not allowed"). */
  locateKey(path: DefinitionPath): SourceLocation {
    const pair = this.pairAt(path);
    const key = pair?.key as Node | undefined;
    return key?.range ? this.position(key.range[0]) : this.locate(path);
  }

  /** The YAML node at `path`, walking as far as it exists. */
  nodeAt(path: DefinitionPath): Node | null {
    let node = this.tree().document.contents as Node | null;
    for (const segment of path) {
      const next = child(node, segment);
      if (!next) break;
      node = next;
    }
    return node;
  }

  /** The scalar at exactly `path`, or null. */
  scalarAt(path: DefinitionPath) {
    let node = this.tree().document.contents as Node | null;
    for (const segment of path) {
      node = child(node, segment);
      if (!node) return null;
    }
    return isScalar(node) ? node : null;
  }

  position(offset: number): SourceLocation {
    const { line, col } = this.tree().lines.linePos(offset);
    return { file: this.file, line, column: col };
  }

  private tree(): Positions {
    // The text parsed cleanly once, so it parses cleanly again: only the tree was missing.
    return (this.positions ??= parseWithPositions(this.source.text));
  }

  private pairAt(path: DefinitionPath): Pair | null {
    const parent = this.nodeAt(path.slice(0, -1));
    const last = path.at(-1);
    if (!isMap(parent)) return null;
    return parent.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(last)) ?? null;
  }
}

function child(node: Node | null, segment: string | number): Node | null {
  if (isMap(node)) {
    const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(segment));
    return (pair?.value as Node | null | undefined) ?? null;
  }
  if (isSeq(node) && typeof segment === 'number') return (node.items[segment] as Node | undefined) ?? null;
  return null;
}

/** Duplicate keys are found by duplicateKeyOffsets: yaml's `uniqueKeys` costs keys^2 per mapping. */
function parseWithPositions(text: string): Positions {
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: false });
  return { document, lines };
}

/**
 * Stage 2: the YAML of one file. Every syntax error is reported, located
 * (the yaml library keeps parsing after one); a file with errors yields no
 * value.
 *
 * Two parsers, one meaning. A valid file is read by js-yaml with its YAML
 * 1.2 core schema, about 3x faster than building `yaml`'s node tree, and
 * with no tree to keep. Whatever js-yaml refuses goes to `yaml`, which
 * decides and reports as it always did: syntax errors, several documents,
 * duplicate keys, unknown tags, complex keys, empty files, directives, and every anchor and alias (so
 * the alias bounds of yaml-aliases.ts apply). js-yaml is the 4.x line: about 2x faster than 5.x's event-based
 * rewrite on definition files. On the files both
 * accept they agree on every value (spec/core/definitions/yaml-fast-path.spec.ts).
 */
export function parseDefinitionFile(source: SourceFile): { parsed: ParsedFile | null; problems: DefinitionProblem[] } {
  const fast = fastValue(source.text);
  if (fast.ok) return withinDepth(new ParsedFile(source, fast.value));
  const positions = parseWithPositions(source.text);
  const at = (offset: number) => {
    const { line, col } = positions.lines.linePos(offset);
    return { file: source.file, line, column: col };
  };
  // yaml's parser runs out of call stack on a file nested thousands deep: that is the file's depth, said as such.
  const overflow = positions.document.errors.find((error) => error.message.includes('Maximum call stack size exceeded'));
  if (overflow) return { parsed: null, problems: [problemAt(at(overflow.pos[0]), 'YAML_TOO_DEEP', `mappings and sequences are nested thousands of levels deep here (more than ${MAX_DEFINITION_DEPTH} may not be); no definition needs that many: flatten it`)] };
  const problems = [
    ...positions.document.errors.map((error) => problemAt(at(error.pos[0]), 'YAML_SYNTAX', firstLine(error.message) + expressionHint(source.text, error.pos[0]))),
    // yaml reads a tag it does not know (!foo) as if it were not there, with a warning only: a definition holds JSON values.
    ...positions.document.warnings
      .filter((warning) => warning.code === 'TAG_RESOLVE_FAILED')
      .map((warning) => problemAt(at(warning.pos[0]), 'YAML_SYNTAX', `${firstLine(warning.message)}: a definition uses YAML's core tags only (!!str, !!int, !!float, !!bool, !!null, !!map, !!seq)`)),
    ...duplicateKeyOffsets(positions.document).map(({ offset, key }) => problemAt(at(offset), 'YAML_SYNTAX', `Map keys must be unique: "${key}" is set twice in this mapping`)),
  ];
  if (problems.length) return { parsed: null, problems };
  // Aliases are bounded before the value is built: yaml's own limit (maxAliasCount) refused ordinary use (one
  // anchor used 100 times) by throwing, and an expanded value is walked as a tree by every later stage.
  const refused = aliasProblem(positions.document);
  if (refused) return { parsed: null, problems: [problemAt(at(refused.offset), refused.code, refused.message)] };
  return withinDepth(new ParsedFile(source, positions.document.toJS({ maxAliasCount: -1 }), positions));
}

/** The most levels of mappings and sequences a definition file may nest (the file's own mapping is level 1; the bundled ones nest at most 15). */
export const MAX_DEFINITION_DEPTH = 100;

/**
 * The file, or a YAML_TOO_DEEP problem at the first mapping or sequence nested past MAX_DEFINITION_DEPTH. Every
 * later stage walks the value as a tree, and a worker hands its analysis back by structured clone, whose reader
 * is recursive: a file 2,000 levels deep was analysed and then could not be read back, and the load waited for
 * ever. Walked with a stack of its own, after aliases were bounded (yaml-aliases.ts).
 */
function withinDepth(parsed: ParsedFile): { parsed: ParsedFile | null; problems: DefinitionProblem[] } {
  // Frames link to their parent: a path is built only for a problem, not copied for every value of every file.
  interface Frame {
    value: object;
    depth: number;
    parent: Frame | null;
    key: string | number;
  }
  const pathOf = (frame: Frame): (string | number)[] => {
    const path: (string | number)[] = [];
    for (let at: Frame | null = frame; at && at.parent; at = at.parent) path.push(at.key);
    return path.reverse();
  };
  if (parsed.value === null || typeof parsed.value !== 'object') return { parsed, problems: [] };
  const stack: Frame[] = [{ value: parsed.value, depth: 0, parent: null, key: '' }];
  while (stack.length) {
    const frame = stack.pop()!;
    const { value } = frame;
    const isArray = Array.isArray(value);
    // What a YAML 1.1 tag makes (!!binary bytes, a !!timestamp date, a !!set or !!omap map): no JSON value, which every later stage expects.
    if (!isArray && Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null) {
      return { parsed: null, problems: [problemAt(parsed.locate(pathOf(frame)), 'YAML_SYNTAX', `this value is not JSON (${value.constructor?.name ?? 'an object'}, from a YAML 1.1 tag such as !!binary, !!timestamp or !!set): write it as text, a number, a list or a mapping`)] };
    }
    if (frame.depth >= MAX_DEFINITION_DEPTH) {
      return { parsed: null, problems: [problemAt(parsed.locate(pathOf(frame)), 'YAML_TOO_DEEP', `mappings and sequences are nested more than ${MAX_DEFINITION_DEPTH} levels deep here; no definition needs that many: flatten it`)] };
    }
    const keys: (string | number)[] = isArray ? [...(value as unknown[]).keys()] : Object.keys(value);
    for (let i = keys.length - 1; i >= 0; i--) {
      const child = (value as Record<string | number, unknown>)[keys[i]!];
      if (child !== null && typeof child === 'object') stack.push({ value: child, depth: frame.depth + 1, parent: frame, key: keys[i]! });
    }
  }
  return { parsed, problems: [] };
}

/** js-yaml's reading of a file, or not ok when it refuses it (then `yaml` decides). */
export function fastValue(text: string): { ok: true; value: unknown } | { ok: false } {
  if (YAML_DECIDES.some(([pattern, needs]) => (!needs || needs.some((part) => text.includes(part))) && pattern.test(text))) return { ok: false };
  try {
    // js-yaml 4's CORE_SCHEMA has no merge type (`<<` is a plain key, as in `yaml`); an alias with no anchor
    // throws ("unidentified alias"), and every anchor is sent to `yaml` by YAML_DECIDES, so no alias is expanded here.
    const value = load(text, { schema: CORE_SCHEMA });
    // Every definition is a mapping; anything else is for `yaml` to read and the schema to refuse.
    return isJsonObject(value) ? { ok: true, value } : { ok: false };
  } catch {
    return { ok: false };
  }
}

/**
 * Constructs the two parsers read differently, each found by the
 * differential test (spec/core/definitions/yaml-fast-path.spec.ts): a directive
 * (%YAML 1.1 changes the schema), an explicit tag (`!!float 1`: yaml keeps a
 * string), an explicit key (`? `), an anchor, an empty or null key (`: x`, `~: x`: yaml names
 * it '', js-yaml 'null'), a tab where indentation is read (yaml refuses it),
 * an indented document start, a document end marker (`...`), and block
 * scalars with an indentation indicator (`|2`) or kept trailing lines (`|+`); and two that
 * js-yaml 4 reads and `yaml` does not or reads otherwise: a `#` right after a closing quote or
 * bracket (js-yaml: a comment; yaml: an error), plain numbers in binary (`0b101`), signed hex or
 * octal (`-0x1`), signed with no digit before the point (`-.5`) or `-0` (js-yaml: 0), a block
 * scalar whose first line is blank (more indented, yaml refuses it), and anything after `---` on
 * its line. The patterns look for where such a token
 * may start, so they also match some JSONata (`x ? y : z` on a line of its
 * own), which only sends that file the slower way.
 *
 * Each pattern comes with strings one of which a text must contain for it
 * to match (null: none worth testing). `includes` scans for them far faster
 * than the pattern scans lines, so a file that has none skips the pattern:
 * 17 patterns cost ~17 µs on a generated 800-byte file, a third of parsing it.
 */
export const YAML_DECIDES: readonly (readonly [RegExp, readonly string[] | null])[] = [
  [/^%/m, ['%']],
  [/(?:^|[\s:,[{-])!(?!=)/m, ['!']],
  [/(?:^[\t -]*|[{[,]\s*)\?(?:\s|$)/m, ['?']],
  [/(?:^[\t -]*|[{[,?]\s*)(?:~|null|Null|NULL)?[\t ]*:(?:[\s,\]}]|$)/m, null],
  [/[{,][\t ]*(?:~|null|Null|NULL)[\t ]*[,}]/, ['~', 'null', 'Null', 'NULL']],
  [/(?:^|[\s:,[{-])&[^\s=]/m, ['&']],
  [/(?:^|[\s:,[{-])[|>](?:[0-9]|[+-]?[0-9]|\+)/m, ['|', '>']],
  [/^[ -]*\t/m, ['\t']],
  [/^[\t ]+---(?:\s|$)/m, ['---']],
  [/^[\t ]*\.\.\.(?:\s|$)/m, ['...']],
  [/["'\]},]#/, ['#']],
  [/(?:^|[\s:,[{])(?:[-+]?0b|[-+]0[ox]|[-+]\.[0-9]|-0(?:[\s,\]}]|$))/m, ['0b', '0o', '0x', '-.', '+.', '-0']],
  [/(?:^|[\s:,[{-])[|>][+-]?[\t ]*(?:#.*)?\n[\t ]*\n/m, ['|', '>']],
  [/^---(?!(?:[\t ]+#.*)?[\t ]*$)/m, ['---']],
  [/[\]}][\t ]*:/, [']', '}']],
  [/(?:^[\t ]*|[:-][\t ]+|[[{,][\t ]*)\{\s*[[{]/m, ['{']],
  [/,\s*[[{]/, ['[', '{']],
];

/** A YAML parse error's message as one line, without the position (the caller says where) or the colon before the yaml package's code frame. */
export function firstLine(message: string): string {
  return message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
}

import { isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node, type Pair } from 'yaml';
import { problemAt, type DefinitionProblem, type SourceLocation } from './problems.ts';
import type { SourceFile } from './source-files.ts';

/** A path into a definition, as ajv and the checks name it: ['arguments', 2, 'parent']. */
export type DefinitionPath = readonly (string | number)[];

/**
 * A YAML file parsed with its positions kept, so any value found wrong later
 * (by the schema, a check or the JSONata compiler) can be pointed at.
 */
export class ParsedFile {
  readonly value: unknown;

  constructor(
    readonly source: SourceFile,
    private readonly document: Document.Parsed,
    private readonly lines: LineCounter,
  ) {
    this.value = document.toJS({ maxAliasCount: 100 });
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
    let node = this.document.contents as Node | null;
    for (const segment of path) {
      const next = child(node, segment);
      if (!next) break;
      node = next;
    }
    return node;
  }

  /** The scalar at exactly `path`, or null. */
  scalarAt(path: DefinitionPath) {
    let node = this.document.contents as Node | null;
    for (const segment of path) {
      node = child(node, segment);
      if (!node) return null;
    }
    return isScalar(node) ? node : null;
  }

  position(offset: number): SourceLocation {
    const { line, col } = this.lines.linePos(offset);
    return { file: this.file, line, column: col };
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

/**
 * Stage 2: YAML with positions. Every syntax error is reported (the yaml
 * library keeps parsing after one); a file with errors yields no value.
 */
export function parseDefinitionFile(source: SourceFile): { parsed: ParsedFile | null; problems: DefinitionProblem[] } {
  const lines = new LineCounter();
  const document = parseDocument(source.text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const problems = document.errors.map((error) => {
    const { line, col } = lines.linePos(error.pos[0]);
    return problemAt({ file: source.file, line, column: col }, 'YAML_SYNTAX', firstLine(error.message));
  });
  if (problems.length) return { parsed: null, problems };
  return { parsed: new ParsedFile(source, document, lines), problems };
}

function firstLine(message: string): string {
  return message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
}

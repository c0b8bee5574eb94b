/**
 * The command blocks of a Markdown document, as the docs check reads them (scripts/docs/check-commands.ts;
 * the convention is in the README, "Tests"):
 *
 *   ```sh            run by the check, as typed, in the order of the document
 *   ```sh example    not run: it has placeholders (<your API key>), or needs what a check cannot have
 *                    (a container engine, another machine, your own account)
 *   ```sh long       runs as typed, but longer than the check's few minutes (a benchmark, the whole suite):
 *                    each command is run with IGW_PARSE_ONLY=1, so its options and arguments are checked
 *                    and nothing is done
 *
 * Other fences (json, yaml, js, text, ...) are not commands. `bash`, `shell` and `console` fences are
 * refused: a command block is `sh`, so none escapes the check by its spelling.
 */

export type BlockKind = 'run' | 'example' | 'long';

export interface CommandLine {
  /** 1-based line in the document where the command starts. */
  line: number;
  /** The command as typed, continuation lines (ending in `\`) joined with their line breaks. */
  text: string;
}

export interface CommandBlock {
  file: string;
  /** The line of the opening fence. */
  line: number;
  kind: BlockKind;
  commands: CommandLine[];
}

/** Something in a document the check refuses before running anything: where, and what to do. */
export interface DocumentProblem {
  file: string;
  line: number;
  message: string;
}

const KINDS: Record<string, BlockKind> = { '': 'run', example: 'example', long: 'long' };
const REFUSED_FENCES = new Set(['bash', 'shell', 'console', 'shell-session', 'zsh']);

/**
 * Text that stands for something the reader fills in: `<your API key>`, `<command>`, `con_…`, `path/to/dir`. A run block
 * holding one cannot run as typed. Shell redirections (`> file`, `2>&1`, `<<EOF`) are not placeholders.
 */
const PLACEHOLDER = /(?<!<)<[A-Za-z](?:[^<>\n]*[^<>\s])?>|…|\bpath\/to\//;

/** The command blocks of `text` (the document `file`) in order, and what the check refuses in it. */
export function commandBlocks(file: string, text: string): { blocks: CommandBlock[]; problems: DocumentProblem[] } {
  const lines = text.split('\n');
  const blocks: CommandBlock[] = [];
  const problems: DocumentProblem[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)\s*(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const [, indent, fence, language, rest] = open as unknown as [string, string, string, string, string];
    // The closing fence: the same character, at least as many (` and ~ are no metacharacters); built once per block.
    const close = new RegExp(`^\\s*${fence[0]}{${fence.length},}\\s*$`);
    let end = i + 1;
    while (end < lines.length && !close.test(lines[end]!)) end++;
    const body = lines.slice(i + 1, end).map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line.trimStart()));
    const at = i + 1;
    i = end;
    if (REFUSED_FENCES.has(language)) {
      problems.push({ file, line: at, message: `a \`\`\`${language} block: write command blocks as \`\`\`sh (run by the check), \`\`\`sh example (not run) or \`\`\`sh long (options checked only); see README.md, Tests` });
      continue;
    }
    if (language !== 'sh') continue;
    const kind = KINDS[rest.trim()];
    if (kind === undefined) {
      problems.push({ file, line: at, message: `\`\`\`sh ${rest.trim()}: the words after sh may be "example" (not run) or "long" (options checked only), nothing else` });
      continue;
    }
    const commands = logicalLines(body, at + 1);
    if (kind !== 'example') {
      for (const command of commands) {
        const placeholder = PLACEHOLDER.exec(withoutComment(command.text));
        if (placeholder) {
          problems.push({
            file,
            line: command.line,
            message: `"${placeholder[0]}" looks like a placeholder, so the line cannot run as typed: put a real value (a command of the document run earlier may set it, as CID=$(curl ...) does), or mark the block \`\`\`sh example`,
          });
        }
      }
    }
    blocks.push({ file, line: at, kind, commands });
  }
  return { blocks, problems };
}

/** Lines joined where one ends in a backslash; blank lines and whole-line comments dropped. */
function logicalLines(body: string[], firstLine: number): CommandLine[] {
  const commands: CommandLine[] = [];
  let current: CommandLine | null = null;
  body.forEach((text, index) => {
    if (current) current.text += `\n${text}`;
    else if (text.trim() === '' || text.trim().startsWith('#')) return;
    else current = { line: firstLine + index, text };
    if (!/\\\s*$/.test(text)) {
      commands.push(current!);
      current = null;
    }
  });
  if (current) commands.push(current);
  return commands;
}

/** The command without a trailing `# comment` (a `#` after a space, outside quotes: good enough for the docs' lines). */
export function withoutComment(text: string): string {
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === quote) quote = null;
    } else if (c === "'" || c === '"') {
      quote = c;
    } else if (c === '#' && (i === 0 || /\s/.test(text[i - 1]!))) {
      return text.slice(0, i).trimEnd();
    }
  }
  return text;
}

/** A command that serves until stopped, and the port it answers on once it is up. */
export interface Server {
  port: number;
  what: string;
}

/**
 * Whether a command starts a server the reader leaves running in a terminal of its own (`npm start`,
 * `npm run dev`, `npm run demo:upstream`, the example backend), and its port: the one its variables set
 * on the line (PORT, DEMO_PORT), else its default.
 */
export function serverOf(text: string): Server | null {
  const command = withoutComment(text).replace(/\\\n/g, ' ');
  const assignments = new Map<string, string>();
  let rest = command.trim();
  for (;;) {
    const assignment = /^([A-Z_][A-Z0-9_]*)=('[^']*'|"[^"]*"|\S*)\s+/.exec(rest);
    if (!assignment) break;
    assignments.set(assignment[1]!, assignment[2]!.replace(/^['"]|['"]$/g, ''));
    rest = rest.slice(assignment[0].length);
  }
  rest = rest.replace(/^npm ci\s*&&\s*/, '');
  const port = (name: string, fallback: number) => (assignments.has(name) ? Number(assignments.get(name)) : fallback);
  if (/^npm (start|run dev)\s*$/.test(rest)) return { port: port('PORT', 8080), what: 'the gateway' };
  if (/^npm run demo:upstream\s*$/.test(rest)) return { port: port('DEMO_PORT', 4010), what: 'the demo to-do API' };
  if (/^node examples\/embedding\/server\.mjs\s*$/.test(rest)) return { port: port('PORT', 3000), what: 'the example backend' };
  return null;
}

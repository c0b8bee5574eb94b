import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

/**
 * One declaration of a command's line: its options and positionals. The
 * parser (node:util parseArgs, strict), the usage line and the --help text
 * all come from it, so what a tool accepts and what it says it accepts
 * cannot drift apart. Used by every script under scripts/ and by the admin
 * tool's commands (engine/admin/commands.ts).
 */
export interface CliOption {
  type: 'string' | 'boolean';
  short?: string;
  /** For a string option: what its value is, as shown in usage (`<folder>`). */
  value?: string;
  description: string;
  /** Shown in the usage line without brackets. */
  required?: true;
  /** A string option that may be given several times (`[--spec <file>]...`); its value is the list. */
  multiple?: true;
}

export interface CliPositional {
  /** As shown in usage: `<dir>`. */
  name: string;
  description: string;
  optional?: true;
  /** The last positional only: one or more of it (`<major>...`). */
  repeated?: true;
}

export interface CliDeclaration {
  /** How it is typed, up to the arguments: `npm run fmt --`. */
  command: string;
  /** One or two sentences: what it does. */
  summary: string;
  options: Record<string, CliOption>;
  positionals?: CliPositional[];
  /** Lines shown under "examples:" in --help. */
  examples?: string[];
}

export type CliValues<O extends Record<string, CliOption>> = {
  [K in keyof O]: (O[K]['type'] extends 'string' ? (O[K]['multiple'] extends true ? string[] : string) : boolean) | undefined;
};

/** What a command line came to: run with these values, print the help (exit 0), or refuse it (exit 2). */
export type CliOutcome<O extends Record<string, CliOption>> =
  | { kind: 'run'; values: CliValues<O>; positionals: string[] }
  | { kind: 'help'; text: string }
  | { kind: 'refused'; text: string };

const HELP: CliOption = { type: 'boolean', short: 'h', description: 'show this help' };

/** `--name <value>` or `--name`, as written in usage and help. */
function optionWord(name: string, option: CliOption): string {
  return option.type === 'string' ? `--${name} ${option.value ?? '<value>'}` : `--${name}`;
}

/**
 * The command as the person typed it. Declarations say `npm run <script> --`, as the README does; a tool
 * run compiled (`node dist/scripts/admin.js`, how the container image runs it: it has no tsx, no scripts/
 * folder and no such npm script) shows that command instead, so its usage line and examples can be typed
 * where it runs. `text` is left alone unless it starts with an `npm run` command.
 */
export function asInvoked(text: string, entry: string | undefined = process.argv[1], cwd = process.cwd()): string {
  if (!entry || !/[\\/]dist[\\/]scripts[\\/].+\.js$/.test(entry)) return text;
  const relative = path.relative(cwd, entry);
  const shown = relative && !relative.startsWith('..') ? relative.split(path.sep).join('/') : entry;
  return text.replace(/^npm run [\w:.-]+(?: --)?/, `node ${shown}`);
}

export function usageLine(declaration: CliDeclaration): string {
  const words = [`usage: ${asInvoked(declaration.command)}`];
  for (const [name, option] of Object.entries(declaration.options)) {
    const word = option.required ? optionWord(name, option) : `[${optionWord(name, option)}]`;
    words.push(option.multiple ? `${word}...` : word);
  }
  for (const positional of declaration.positionals ?? []) {
    const word = positional.optional ? `[${positional.name}]` : positional.name;
    words.push(positional.repeated ? `${word}...` : word);
  }
  // `npm run x --` with nothing after it reads as a typo: shown bare when the command takes nothing.
  return words.length === 1 ? words[0]!.replace(/ --$/, '') : words.join(' ');
}

export function helpText(declaration: CliDeclaration): string {
  const rows = (list: [string, string][]) => {
    const width = Math.max(...list.map(([left]) => left.length)) + 2;
    return list.map(([left, right]) => `  ${left.padEnd(width)}${right}`);
  };
  const lines = [usageLine(declaration), '', declaration.summary, ''];
  const positionals = declaration.positionals ?? [];
  if (positionals.length) lines.push('arguments:', ...rows(positionals.map((p) => [p.name, p.description])), '');
  const options = { ...declaration.options, help: HELP };
  lines.push('options:', ...rows(Object.entries(options).map(([name, o]) => [`${o.short ? `-${o.short}, ` : ''}${optionWord(name, o)}`, o.description])), '');
  if (declaration.examples?.length) lines.push('examples:', ...declaration.examples.map((e) => `  ${asInvoked(e)}`), '');
  return lines.join('\n');
}

/** parseArgs' own messages name the option but run long; the first clause in the tools' wording. */
function refusal(error: unknown, argv: readonly string[]): string {
  const { code, message } = error as { code?: string; message: string };
  const option = /'(-[^']*)'/.exec(message)?.[1];
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && option) return `unknown option ${option.replace(/^(--[^=]*)=.*$/, '$1')}`;
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    const named = /(--[\w-]+)/.exec(message)?.[1];
    if (message.includes('argument missing')) return `${named} needs a value`;
    // A value that starts with a dash (-1) looks like an option: parseArgs takes it only after '='.
    if (message.includes('ambiguous')) {
      const value = argv[argv.indexOf(named!) + 1];
      return `${named} needs a value (one starting with a dash is written ${named}=${value ?? '<value>'})`;
    }
    return `${named} takes no value`;
  }
  return message.split('. ')[0]!;
}

/** Parses `argv` (the arguments after the command) against the declaration. Pure: prints nothing. */
export function parseCommandLine<O extends Record<string, CliOption>>(declaration: CliDeclaration & { options: O }, argv: readonly string[]): CliOutcome<O> {
  const refused = (message: string): CliOutcome<O> => ({ kind: 'refused', text: `${message}\n${usageLine(declaration)}` });
  const options = Object.fromEntries(
    Object.entries({ ...declaration.options, help: HELP }).map(([name, o]) => [name, { type: o.type, ...(o.short ? { short: o.short } : {}), ...(o.multiple ? { multiple: true } : {}) }]),
  );
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], options, allowPositionals: true, strict: true });
  } catch (error) {
    // --help anywhere wins over a mistake elsewhere: whoever typed it wants to know what is accepted.
    if (argv.includes('--help') || argv.includes('-h')) return { kind: 'help', text: helpText(declaration) };
    return refused(refusal(error, argv));
  }
  if (parsed.values.help) return { kind: 'help', text: helpText(declaration) };
  const declared = declaration.positionals ?? [];
  const needed = declared.filter((p) => !p.optional);
  if (parsed.positionals.length > declared.length && !declared.at(-1)?.repeated) {
    const extra = parsed.positionals.slice(declared.length);
    return refused(`unexpected argument${extra.length === 1 ? '' : 's'} ${extra.join(' ')}`);
  }
  if (parsed.positionals.length < needed.length) return refused(`missing ${needed.slice(parsed.positionals.length).map((p) => p.name).join(' ')}`);
  for (const [name, option] of Object.entries(declaration.options)) {
    if (option.required && parsed.values[name] === undefined) return refused(`--${name} is required`);
  }
  const { help: _help, ...values } = parsed.values;
  return { kind: 'run', values: values as CliValues<O>, positionals: parsed.positionals };
}

/** Set to 1, a tool checks its command line (exit 0, or 2 refused) and runs nothing: how the docs check reads a `sh long` block. */
export const PARSE_ONLY = 'IGW_PARSE_ONLY';

/**
 * `npm run x -- --help | head -3`: the reader closes the pipe before the tool has written everything, and
 * the next write fails with EPIPE, an 'error' event nobody listens to, which ends the tool with a stack
 * trace and exit code 1. Nothing is wrong with the tool: the rest of its output is let go (a stream that
 * failed once stays quiet) and it finishes its work with its own exit code. Any other failure of the
 * stream is still thrown.
 */
function readerMayLeave(): void {
  for (const stream of [process.stdout, process.stderr]) {
    if (stream.listeners('error').includes(pipeClosed)) continue;
    stream.on('error', pipeClosed);
  }
}

function pipeClosed(error: NodeJS.ErrnoException): void {
  if (error.code !== 'EPIPE') throw error;
}

/**
 * For a script: parses its own arguments; prints the help (stdout, exit code
 * 0) or the refusal with the usage line (stderr, exit code 2) and returns
 * null, or returns the values to run with (null too under IGW_PARSE_ONLY=1).
 */
export function commandLine<O extends Record<string, CliOption>>(
  declaration: CliDeclaration & { options: O },
  argv: readonly string[] = process.argv.slice(2),
): { values: CliValues<O>; positionals: string[] } | null {
  readerMayLeave();
  const outcome = parseCommandLine(declaration, argv);
  if (outcome.kind === 'run' && process.env[PARSE_ONLY] === '1') {
    // The docs check's `sh long` blocks (scripts/docs/): the line is checked, nothing is run.
    process.stdout.write(`${PARSE_ONLY}=1: the command line is accepted; nothing was run\n`);
    process.exitCode = 0;
    return null;
  }
  if (outcome.kind === 'run') return outcome;
  // exitCode rather than exit(): output to a pipe is written asynchronously and must not be cut off.
  if (outcome.kind === 'help') process.stdout.write(outcome.text);
  else process.stderr.write(`${outcome.text}\n`);
  process.exitCode = outcome.kind === 'help' ? 0 : 2;
  return null;
}

/** True when the module at `url` (pass import.meta.url) is the process's entry: a script imported (by a spec) declares its command line and runs nothing. */
export function isEntry(url: string): boolean {
  const entry = process.argv[1];
  if (entry === undefined) return false;
  // The module's URL is the file's real path; the command line may name it through a symbolic link.
  const real = (file: string) => {
    try {
      return fs.realpathSync(file);
    } catch {
      return path.resolve(file);
    }
  };
  return real(entry) === real(fileURLToPath(url));
}

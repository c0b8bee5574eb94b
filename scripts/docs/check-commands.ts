/**
 * `npm run check:docs -- [<file>...]`: every command line of README.md and docs/*.md runs as typed, in the
 * order of its document, on a fresh clone. Each document gets a clone of its own (the checkout's commits and
 * its uncommitted changes; node_modules linked, dist/ copied so a start does not compile it all again) and a
 * network of its own (`unshare -rn`, where the system has it: the documents' ports, 8080, 4010, 3000, are
 * then free whatever else runs on the machine). Its `sh` blocks run in one bash session
 * (scripts/docs/session-script.ts), servers in the background until their port answers. The first command
 * that fails stops the document and is reported with its file, line, what it printed and what the servers
 * printed. Exits 0 when every document ran, 1 when one failed, 2 on a usage error. CI runs it (.ci/run).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, promises as fs, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { commandLine, isEntry, usageLine } from '../../engine/platform/cli/command-line.ts';
import { PACKAGE_ROOT } from '../../engine/platform/package-root.ts';
import { commandBlocks, type CommandBlock, type DocumentProblem } from './command-blocks.ts';
import { AT_MARK, FAILED_MARK, sessionScript } from './session-script.ts';

export const cli = {
  command: 'npm run check:docs --',
  summary:
    'Runs every command line of README.md and docs/*.md as typed, in order, each document on a fresh clone of this checkout, and names the first that fails (file, line, what it printed). Exits 1 when one fails.',
  options: {
    timeout: { type: 'string' as const, value: '<s>', description: 'seconds one document may take (default 600; docs/definitions.md, the longest, took 282 s on 2 CPUs at load average 22)' },
    keep: { type: 'boolean' as const, description: 'keep the clones and the session logs (their folder is printed)' },
  },
  positionals: [{ name: '<file>', description: 'the documents (default README.md and docs/*.md)', optional: true as const, repeated: true as const }],
  examples: ['npm run check:docs', 'npm run check:docs -- docs/embedding.md', 'npm run check:docs -- README.md --keep'],
};

/** What to do when a document fails: said under every failure, for whoever is writing the document. */
export const WHAT_TO_FIX =
  'Make the document run as typed, in order, on a fresh clone: a block may use only what the blocks before it in the same document ' +
  'started or set (a server, a variable, a file); a curl must get a 2xx. Or mark a block that is not meant to run ```sh example, and one ' +
  'too long for the check ```sh long (its options are checked only): see README.md, "Tests".';

export interface DocumentResult {
  file: string;
  ok: boolean;
  /** The report: a summary line, or the failure with its context. */
  text: string;
}

/** Checks the documents before running anything: command blocks and placeholders (commandBlocks). */
export function readDocuments(root: string, files: readonly string[]): { documents: { file: string; blocks: CommandBlock[] }[]; problems: DocumentProblem[] } {
  const documents: { file: string; blocks: CommandBlock[] }[] = [];
  const problems: DocumentProblem[] = [];
  for (const file of files) {
    const read = commandBlocks(file, readFileSync(path.join(root, file), 'utf8'));
    documents.push({ file, blocks: read.blocks });
    problems.push(...read.problems);
  }
  return { documents, problems };
}

/** README.md and docs/*.md, in that order. */
export function defaultDocuments(root: string): string[] {
  const docs = readdirSync(path.join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs];
}

/** A fresh clone of `root` in `into`: its commits, its uncommitted changes, node_modules linked, dist/ copied. */
export async function cloneCheckout(root: string, into: string): Promise<void> {
  const git = (args: string[], cwd = root) => {
    const run = spawnSync('git', args, { cwd, encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${run.stderr.trim()}`);
    return run.stdout;
  };
  git(['clone', '--quiet', '--shared', '--no-checkout', root, into]);
  git(['checkout', '--quiet', git(['rev-parse', 'HEAD']).trim()], into);
  // The documents name `main` (npm run diff -- main HEAD): the clone of a branch has it as origin/main only.
  spawnSync('git', ['branch', '--quiet', 'main', 'origin/main'], { cwd: into });
  // What the working tree has that HEAD has not: the documents being written are checked as they are now.
  const entries = git(['status', '--porcelain', '--untracked-files=all', '-z']).split('\0');
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i]!;
    if (entry.length < 4) continue;
    // A rename is followed by its old path, which is not an entry of its own.
    if (entry[0] === 'R' || entry[0] === 'C') i++;
    const file = entry.slice(3);
    const source = path.join(root, file);
    const target = path.join(into, file);
    if (existsSync(source)) {
      await fs.mkdir(path.dirname(target), { recursive: true });
      await fs.cp(source, target, { recursive: true });
    } else {
      await fs.rm(target, { force: true, recursive: true });
    }
  }
  await fs.symlink(path.join(root, 'node_modules'), path.join(into, 'node_modules'));
  if (existsSync(path.join(root, 'dist'))) await fs.cp(path.join(root, 'dist'), path.join(into, 'dist'), { recursive: true });
}

/** Whether this system gives a process a network of its own (a user and network namespace, its loopback up). */
export function privateNetworkAvailable(): boolean {
  const probe = spawnSync('unshare', ['-rn', 'sh', '-c', 'ip link set lo up'], { encoding: 'utf8' });
  return probe.status === 0;
}

/** Runs one document's session in `clone`; resolves with its report. */
export async function runDocument(
  document: { file: string; blocks: CommandBlock[] },
  clone: string,
  options: { timeoutMs: number; privateNetwork: boolean; logs: string },
): Promise<DocumentResult> {
  await fs.mkdir(options.logs, { recursive: true });
  const script = path.join(options.logs, 'session.sh');
  await fs.writeFile(script, sessionScript(document.blocks, options.logs));
  const command = options.privateNetwork ? ['unshare', '-rn', 'bash', '-c', `ip link set lo up && exec bash ${quote(script)}`] : ['bash', script];
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? os.homedir(), LANG: process.env.LANG ?? 'C.UTF-8', TERM: 'dumb' };
  const child = spawn(command[0]!, command.slice(1), { cwd: clone, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += String(chunk)));
  child.stderr.on('data', (chunk) => (output += String(chunk)));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup(child.pid);
  }, options.timeoutMs);
  const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearTimeout(timer);
  // Whatever the session left (a server that ignored its stop): the whole process group goes, and each server's,
  // a process group of its own (setsid), which a session killed on a timeout never stopped.
  killGroup(child.pid);
  for (const pid of serverGroups(options.logs)) killGroup(pid);
  await fs.writeFile(path.join(options.logs, 'session.log'), output);
  return report(document, output, status, timedOut, options);
}

/** The process groups of the servers the session started (<logs>/servers.pids). */
export function serverGroups(logs: string): number[] {
  const file = path.join(logs, 'servers.pids');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .map(Number)
    .filter((pid) => Number.isInteger(pid) && pid > 1);
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Gone already.
  }
}

/** The summary of a document that ran, or its failure: the command, what it printed, the servers' last words, what to fix. */
function report(document: { file: string; blocks: CommandBlock[] }, output: string, status: number | null, timedOut: boolean, options: { timeoutMs: number; logs: string }): DocumentResult {
  const commands = document.blocks.flatMap((block) => block.commands.map((command) => ({ block, command })));
  const counts = {
    ran: document.blocks.filter((b) => b.kind === 'run').reduce((n, b) => n + b.commands.length, 0),
    example: document.blocks.filter((b) => b.kind === 'example').length,
    long: document.blocks.filter((b) => b.kind === 'long').reduce((n, b) => n + b.commands.length, 0),
  };
  const marks = [...output.matchAll(new RegExp(`^${AT_MARK} (.*)$`, 'gm'))];
  const last = marks.at(-1);
  const finished = last?.[1] === 'end' && status === 0 && !timedOut;
  if (finished) {
    const parts = [`${counts.ran} command${counts.ran === 1 ? '' : 's'} ran`];
    if (counts.long) parts.push(`${counts.long} long one${counts.long === 1 ? '' : 's'} checked (options only)`);
    if (counts.example) parts.push(`${counts.example} example block${counts.example === 1 ? '' : 's'} not run`);
    const slowest = slowestCommands(options.logs);
    return { file: document.file, ok: true, text: `ok   ${document.file}: ${parts.join(', ')}${slowest ? `; slowest: ${slowest}` : ''}` };
  }
  const at = last?.[1] ?? `${document.file} (before its first command)`;
  const found = commands.find(({ block, command }) => `${block.file}:${command.line}` === at);
  const printed = last ? output.slice(last.index! + last[0].length) : output;
  const failed = new RegExp(`^${FAILED_MARK} (\\d+)$`, 'm').exec(printed);
  const said = printed
    .replace(new RegExp(`^${FAILED_MARK}.*$`, 'gm'), '')
    .trim()
    .split('\n')
    .slice(-30);
  const why = timedOut ? `did not finish within ${options.timeoutMs / 1000} s (--timeout)` : failed ? `failed (exit ${failed[1]})` : `ended the session (exit ${status})`;
  const lines = [`FAIL ${at} ${why}:`];
  if (found) lines.push(...found.command.text.split('\n').map((l, i) => `${i === 0 ? '  $ ' : '    '}${l}`));
  lines.push('  it printed:', ...(said.length && said[0] !== '' ? said.map((l) => `    ${l}`) : ['    (nothing)']));
  for (const log of serverLogs(options.logs)) {
    lines.push(`  ${log.what}, its last lines:`, ...log.tail.map((l) => `    ${l}`));
  }
  const slowest = slowestCommands(options.logs);
  if (slowest) lines.push(`  the slowest commands before it: ${slowest}`);
  lines.push(`  ${WHAT_TO_FIX}`);
  return { file: document.file, ok: false, text: lines.join('\n') };
}

/** The three commands of the session that took longest (from <logs>/times.tsv: each command's start), as `file:line N s`. */
export function slowestCommands(logs: string): string {
  const file = path.join(logs, 'times.tsv');
  if (!existsSync(file)) return '';
  const starts = readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => line.split('\t'))
    .map(([time, at]) => ({ time: Number(time), at: at ?? '' }))
    .filter((start) => Number.isFinite(start.time) && start.time > 0);
  const took = starts.slice(0, -1).map((start, i) => ({ at: start.at, seconds: starts[i + 1]!.time - start.time }));
  return took
    .sort((a, b) => b.seconds - a.seconds)
    .slice(0, 3)
    .map((c) => `${c.at} ${c.seconds.toFixed(1)} s`)
    .join(', ');
}

/** The last lines each background server of the session wrote. */
function serverLogs(logs: string): { what: string; tail: string[] }[] {
  if (!existsSync(logs)) return [];
  return readdirSync(logs)
    .filter((name) => /^port-\d+\.log$/.test(name))
    .map((name) => ({
      what: `the server on port ${/\d+/.exec(name)![0]} (${path.join(logs, name)})`,
      tail: readFileSync(path.join(logs, name), 'utf8').trim().split('\n').slice(-8),
    }));
}

function quote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

async function main(): Promise<void> {
  const args = commandLine(cli);
  if (!args) return;
  const timeout = Number(args.values.timeout ?? '600');
  if (!Number.isInteger(timeout) || timeout < 1) {
    process.stderr.write(`--timeout must be a whole number of seconds, 1 or more (got ${args.values.timeout})\n${usageLine(cli)}\n`);
    process.exitCode = 2;
    return;
  }
  const root = PACKAGE_ROOT;
  const files = args.positionals.length ? args.positionals.map((file) => path.relative(root, path.resolve(file))) : defaultDocuments(root);
  const missing = files.find((file) => !existsSync(path.join(root, file)));
  if (missing !== undefined) {
    process.stderr.write(`${missing} is not a document of this checkout\n${usageLine(cli)}\n`);
    process.exitCode = 2;
    return;
  }
  const { documents, problems } = readDocuments(root, files);
  if (problems.length) {
    for (const problem of problems) process.stdout.write(`FAIL ${problem.file}:${problem.line} ${problem.message}\n`);
    process.stdout.write(`${problems.length} problem${problems.length === 1 ? '' : 's'} in the documents' command blocks; nothing was run\n`);
    process.exitCode = 1;
    return;
  }
  const privateNetwork = privateNetworkAvailable();
  if (!privateNetwork) process.stdout.write('(no private network here (unshare -rn): the documents\' ports must be free on this machine)\n');
  const work = await fs.mkdtemp(path.join(os.tmpdir(), 'igw-docs-check-'));
  // Each document's wall time and the whole: CI runs the check, and its time is part of CI's budget.
  const started = performance.now();
  const seconds = (since: number) => `${Math.round((performance.now() - since) / 100) / 10} s`;
  let failed = 0;
  try {
    for (const document of documents) {
      const runs = document.blocks.some((block) => block.kind !== 'example');
      if (!runs) {
        process.stdout.write(`ok   ${document.file}: no command to run\n`);
        continue;
      }
      const documentStarted = performance.now();
      const base = path.join(work, document.file.replace(/[/.]/g, '-'));
      const clone = path.join(base, 'clone');
      await cloneCheckout(root, clone);
      const result = await runDocument(document, clone, { timeoutMs: timeout * 1000, privateNetwork, logs: path.join(base, 'logs') });
      process.stdout.write(result.ok ? `${result.text} (${seconds(documentStarted)})\n` : `${result.text}\n(${document.file}: ${seconds(documentStarted)})\n`);
      if (!result.ok) failed++;
    }
  } finally {
    if (args.values.keep) process.stdout.write(`clones and logs kept in ${work}\n`);
    else await fs.rm(work, { recursive: true, force: true });
  }
  process.stdout.write(failed ? `${failed} of ${documents.length} documents failed (${seconds(started)})\n` : `every command of ${documents.length} documents ran as typed (${seconds(started)})\n`);
  process.exitCode = failed ? 1 : 0;
}

if (isEntry(import.meta.url)) await main();

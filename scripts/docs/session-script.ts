import { serverOf, type CommandBlock } from './command-blocks.ts';

/** A line the session prints before each command: where the command is in its document. */
export const AT_MARK = '::docs-at::';
/** The line the session prints when a command failed: its exit status. */
export const FAILED_MARK = '::docs-failed::';

/**
 * One document's command blocks as a bash session, the way a reader types them into terminals in order:
 * one shell, so what a block sets (KEY=..., CID=$(curl ...)) is there for the next. Around the commands:
 *
 * - each command is preceded by `::docs-at:: <file>:<line>`, so a failure names its line and what it printed,
 *   and its start time goes to `<logs>/times.tsv` (the check names the slowest commands);
 * - `set -Eeo pipefail` and an ERR trap: the first command that fails ends the session (`::docs-failed:: <status>`);
 * - `curl` fails on an HTTP error status (`--fail-with-body`: the answer is still printed), so a call the
 *   gateway refuses (a 400, a 401) fails the check instead of printing an error nobody reads;
 * - `npm ci` and `npm test` are not run (the clone's node_modules is the checkout's, linked; CI runs the suite);
 * - a server command (serverOf) starts in the background, in a process group of its own, and the session
 *   goes on once its port answers; one started on a port an earlier server of the document holds replaces it,
 *   as Ctrl-C in that terminal and the new command would. Its output goes to `<logs>/port-<port>.log`;
 * - a `long` block's commands run with IGW_PARSE_ONLY=1: the tools check their command line and exit;
 * - on exit, every server is stopped (SIGINT, as Ctrl-C); each server's process group is also written to
 *   `<logs>/servers.pids`, so the check stops them when the session was killed (a timeout).
 */
export function sessionScript(blocks: readonly CommandBlock[], logs: string): string {
  const out: string[] = [
    'set -Eeo pipefail',
    'exec </dev/null 2>&1',
    `__logs=${quote(logs)}`,
    'declare -A __servers=()',
    // Each command's start, to <logs>/times.tsv: the check names the slowest (CI pays for them).
    `__at() { printf '%s\\t%s\\n' "$EPOCHREALTIME" "$1" >>"$__logs/times.tsv"; printf '\\n${AT_MARK} %s\\n' "$1"; }`,
    `trap 'printf "\\n${FAILED_MARK} %s\\n" "$?"' ERR`,
    'curl() { command curl --fail-with-body --show-error "$@"; }',
    'npm() {',
    '  case "$1" in',
    '    ci) echo "(npm ci: not run by the docs check: node_modules is linked from the checkout)" ;;',
    '    test) echo "(npm test: not run by the docs check: CI runs the suite, .ci/run)" ;;',
    '    *) command npm "$@" ;;',
    '  esac',
    '}',
    '__stop() { local pid="$1"; kill -INT -- "-$pid" 2>/dev/null || true; for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done; kill -KILL -- "-$pid" 2>/dev/null || true; }',
    'trap \'for p in "${__servers[@]}"; do __stop "$p"; done\' EXIT',
    '__serve() {',
    '  local port="$1" what="$2" line="$3" log="$__logs/port-$1.log"',
    '  if [ -n "${__servers[$port]:-}" ]; then echo "(stopping the earlier server on port $port, as Ctrl-C in its terminal would)"; __stop "${__servers[$port]}"; fi',
    '  setsid bash -c "$line" >"$log" 2>&1 &',
    '  __servers[$port]=$!',
    // Its process group, for the check to stop after the session whatever ended it (a timeout kills the session before its EXIT trap).
    '  echo "$!" >>"$__logs/servers.pids"',
    '  for _ in $(seq 1 1200); do',
    '    if command curl -s -o /dev/null --max-time 1 "http://127.0.0.1:$port/"; then echo "($what answers on port $port; its output: $log)"; return 0; fi',
    '    if ! kill -0 "${__servers[$port]}" 2>/dev/null; then echo "$what exited before answering on port $port; its output:"; tail -n 40 "$log"; return 1; fi',
    '    sleep 0.1',
    '  done',
    '  echo "$what did not answer on port $port within 120 s; its output:"; tail -n 40 "$log"; return 1',
    '}',
  ];
  for (const block of blocks) {
    if (block.kind === 'example') continue;
    for (const command of block.commands) {
      out.push(`__at ${quote(`${block.file}:${command.line}`)}`);
      const server = block.kind === 'run' ? serverOf(command.text) : null;
      if (server) out.push(`__serve ${server.port} ${quote(server.what)} ${quote(command.text.replace(/^npm ci\s*&&\s*/, ''))}`);
      else if (block.kind === 'long') out.push(`(export IGW_PARSE_ONLY=1\n${command.text}\n)`);
      else out.push(command.text);
    }
  }
  out.push(`__at ${quote('end')}`);
  return `${out.join('\n')}\n`;
}

/** A bash single-quoted word. */
function quote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

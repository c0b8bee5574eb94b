/**
 * `npm run bench:logs`: what writing the gateway's logs costs at the default level (info, one line per
 * request), with pino's synchronous stdout destination (a write(2) per line, on the request's time) against
 * the asynchronous one the gateway uses (lines queued, written by a background write). Each is measured with
 * stdout going to /dev/null, to a file, and to a pipe read by this process (a container runtime or a log
 * shipper), next to LOG_LEVEL=silent (no line at all). Reports figures; never fails on speed.
 *
 *   npm run bench:logs                      # 2 rounds, 2 s warm-up, 5 s per run, 10 connections
 *   npm run bench:logs -- --rounds=1 --duration=3 --warmup=1 --connections=10
 */
import { isEntry } from '../../engine/platform/cli/command-line.ts';

export { cli } from './logs-cli.ts';

// Run (and --help, refusals) only as the entry: a spec imports this file for its declaration.
if (isEntry(import.meta.url)) await import('./logs-run.ts');

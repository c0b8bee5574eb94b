/**
 * `npm run bench:tracing`: what OpenTelemetry tracing costs the gateway per
 * run, on and off, side by side in one run. Two gateway processes (the
 * bench's gateway.ts) against one local upstream: one with no OTEL_* (off:
 * the SDK is not loaded), one exporting OTLP/HTTP to a sink in this process
 * that counts the spans and drops them. The load alternates between them,
 * round after round, so a busy machine weighs on both alike; each figure is
 * the median over the rounds. Then the instrumentation alone
 * (tracing-instrumentation.ts): the spans of one run around work that does
 * nothing, in a process of its own per variant, so a figure that a loaded
 * machine blurs in the load part is seen without the rest of the run. It
 * reports figures and never fails on speed.
 *
 *   npm run bench:tracing
 *   npm run bench:tracing -- --only=instrumentation     # or load
 *   npm run bench:tracing -- --rounds=5 --duration=5 --warmup=1 --connections=10 --records=10 --runs=20000
 */
import { isEntry } from '../../engine/platform/cli/command-line.ts';

export { cli } from './tracing-cost-cli.ts';

// Run (and --help, refusals) only as the entry: a spec imports this file for its declaration.
if (isEntry(import.meta.url)) await import('./tracing-cost-run.ts');

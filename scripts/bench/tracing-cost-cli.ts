/** The command line of `npm run bench:tracing` (scripts/bench/tracing-cost.ts), apart from its body so both can import it. */
export const cli = {
  command: 'npm run bench:tracing --',
  summary:
    'Measures what OpenTelemetry tracing costs the gateway per run, on and off, side by side in alternating rounds, and the instrumentation alone. Reports figures; never fails on speed.',
  options: {
    only: { type: 'string' as const, value: '<parts>', description: 'load, instrumentation or both (comma-separated; default both)' },
    rounds: { type: 'string' as const, value: '<n>', description: 'alternating rounds of the load part (default 3)' },
    duration: { type: 'string' as const, value: '<s>', description: 'seconds of each measured load (default 5)' },
    warmup: { type: 'string' as const, value: '<s>', description: 'seconds of warm-up before each (default 1)' },
    connections: { type: 'string' as const, value: '<n>', description: 'concurrent connections (default 10)' },
    records: { type: 'string' as const, value: '<n>', description: 'records in each answer (default 10)' },
    runs: { type: 'string' as const, value: '<n>', description: 'runs of the instrumentation part (default 20000)' },
  },
  examples: ['npm run bench:tracing', 'npm run bench:tracing -- --only=instrumentation', 'npm run bench:tracing -- --rounds=5 --duration=5'],
};

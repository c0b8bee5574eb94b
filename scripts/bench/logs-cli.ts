/** The command line of `npm run bench:logs` (scripts/bench/logs.ts), apart from its body so both can import it. */
export const cli = {
  command: 'npm run bench:logs --',
  summary:
    "Measures what writing the gateway's logs costs at the default level: pino's synchronous destination against the asynchronous one, to /dev/null, a file and a pipe, next to LOG_LEVEL=silent. Reports figures; never fails on speed.",
  options: {
    part: { type: 'string' as const, value: '<parts>', description: 'lines, load or both (comma-separated; default lines,load)' },
    rounds: { type: 'string' as const, value: '<n>', description: 'rounds, each measuring every variant (default 2)' },
    lines: { type: 'string' as const, value: '<n>', description: 'lines written in the lines part (default 100000)' },
    duration: { type: 'string' as const, value: '<s>', description: 'seconds of each measured load (default 5)' },
    warmup: { type: 'string' as const, value: '<s>', description: 'seconds of warm-up before each (default 2)' },
    connections: { type: 'string' as const, value: '<n>', description: 'concurrent connections (default 10)' },
    records: { type: 'string' as const, value: '<n>', description: 'records in each answer (default 10)' },
  },
  examples: ['npm run bench:logs', 'npm run bench:logs -- --rounds=1 --duration=3 --warmup=1 --connections=10'],
};

import { serveAsChild } from './child.ts';

/** A one-shot child's main: run, report `{ result }` to the parent (or print it when run alone). */
export function runChildMain<R>(main: () => Promise<R>): void {
  main().then(
    (result) => {
      if (process.send) serveAsChild({ result }, async () => {});
      else process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    },
    (error: unknown) => {
      process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
      process.exit(1);
    },
  );
}

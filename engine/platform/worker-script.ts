import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The source of a worker thread (for `new Worker(source, { eval: true })`) that runs the module `name` beside
 * the caller (`callerUrl`: its import.meta.url), with the caller's own extension: `.ts` under tsx, `.js`
 * compiled (dist/). A TypeScript worker registers tsx's loader in its own thread first: a worker does not get
 * the hooks `--import tsx` registered in the main thread (privatenumber/tsx#354).
 */
export function workerScript(callerUrl: string, name: string): string {
  const module = new URL(`./${name}${path.extname(fileURLToPath(callerUrl))}`, callerUrl).href;
  return module.endsWith('.ts')
    ? `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(module)}); });`
    : `import(${JSON.stringify(module)});`;
}

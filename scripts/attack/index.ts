/**
 * `npm run attack`: hostile inputs against a real gateway on 127.0.0.1, one
 * attack a file in this folder (`*.attack.ts`, each exporting `attack`).
 * Every attack starts its own gateway process, bounds its loops in count and
 * time, and reports figures (the attack's worst time, `/health` latency while
 * it ran). It exits 1 only when the gateway answered wrong or died.
 *
 *   npm run attack                 # every attack
 *   npm run attack -- --only=like  # the attacks whose name is listed
 *   npm run attack -- --list
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { commandLine, isEntry } from '../../engine/platform/cli/command-line.ts';
import { printReport, type Attack } from './support.ts';

export const cli = {
  command: 'npm run attack --',
  summary:
    'Sends hostile input to a real gateway on 127.0.0.1, one attack a file in scripts/attack/, and reports figures; exits 1 only when the gateway answered wrong or died.',
  options: {
    only: { type: 'string' as const, value: '<name,...>', description: 'only the attacks named (comma-separated; see --list)' },
    list: { type: 'boolean' as const, description: 'list the attacks and what each tries, and run none' },
  },
  examples: ['npm run attack', 'npm run attack -- --list', 'npm run attack -- --only=like'],
};

const args = isEntry(import.meta.url) ? commandLine(cli) : null;
if (args) await main(args.values);

async function main(values: { only?: string | undefined; list?: boolean | undefined }): Promise<void> {
  const dir = path.dirname(fileURLToPath(import.meta.url));
  // `.attack.ts` under tsx, `.attack.js` compiled.
  const ownExtension = path.extname(fileURLToPath(import.meta.url));
  const files = (await fs.readdir(dir)).filter((file) => file.endsWith(`.attack${ownExtension}`)).sort();
  const attacks: Attack[] = [];
  for (const file of files) attacks.push(((await import(pathToFileURL(path.join(dir, file)).href)) as { attack: Attack }).attack);

  if (values.list) {
    for (const attack of attacks) process.stdout.write(`${attack.name.padEnd(16)} ${attack.summary}\n`);
    process.exit(0);
  }
  const only = values.only?.split(',').map((name) => name.trim());
  const unknown = only?.filter((name) => !attacks.some((attack) => attack.name === name)) ?? [];
  if (unknown.length) {
    process.stderr.write(`no attack named ${unknown.join(', ')}; there are: ${attacks.map((a) => a.name).join(', ')}\n`);
    process.exit(2);
  }
  let ok = true;
  for (const attack of attacks.filter((a) => !only || only.includes(a.name))) {
    process.stdout.write(`\n# ${attack.name}: ${attack.summary}\n`);
    const report = await attack.run();
    printReport(report);
    ok &&= report.ok;
  }
  process.exit(ok ? 0 : 1);
}

/**
 * `npm run new-app -- [--name "Display Name"] [--dir <folder>] <slug>`:
 * scaffolds a valid app folder (app file, a draft version with an API, an
 * API-key auth, one list action and its offline test cases) that passes
 * `npm run validate` and `npm run fmt -- --check` as generated, then prints
 * the commands to run next, naming the folder it wrote to.
 * Exits 2 on a usage error, an invalid slug, an existing folder, or an id or
 * slug an app of the folder or of the bundled definitions/ already uses, or a
 * folder it cannot write in (nothing is left half-written).
 */
import path from 'node:path';
import { createApp } from '../engine/authoring/create-app.ts';
import { commandLine, isEntry } from '../engine/platform/cli/command-line.ts';

export const cli = {
  command: 'npm run new-app --',
  summary: 'Scaffolds an app folder that passes validate, fmt and its own offline tests as generated, and prints the commands to run next.',
  options: {
    name: { type: 'string' as const, value: '"Display Name"', description: 'the app\'s display name (default: from the slug)' },
    dir: { type: 'string' as const, value: '<folder>', description: 'the definitions folder to write to (default DEFINITIONS_DIR, else definitions)' },
  },
  positionals: [{ name: '<slug>', description: 'the app\'s slug: lower-case letters, digits and dashes' }],
  examples: ['npm run new-app -- acme-crm --name "Acme CRM"', 'npm run new-app -- acme-crm --dir some/folder'],
};

/** A word a shell reads back as it is: quoted when it holds a space or another special character. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

const args = isEntry(import.meta.url) ? commandLine(cli) : null;
if (args) {
  const parsed = { slug: args.positionals[0]!, name: args.values.name, dir: args.values.dir ?? process.env.DEFINITIONS_DIR ?? 'definitions' };
  const outcome = await createApp(parsed.dir, parsed.slug, parsed.name);
  if (!outcome.ok) {
    process.stderr.write(`${outcome.reason}\n`);
    process.exitCode = 2;
  } else {
    const shown = (file: string) => path.relative(process.cwd(), path.resolve(file)) || '.';
    const folder = shellWord(shown(parsed.dir));
    const lines = [`Created ${shown(outcome.folder)}:`, ...outcome.files.map((f) => `  ${shown(f)}`), ''];
    lines.push(
      'Next: point api.yaml, the auth and the action at the provider, write test cases beside each action, then',
      `  npm run validate -- ${folder}`,
      `  npm run fmt -- ${folder}`,
      // test:definitions reads ./definitions (or DEFINITIONS_DIR) unless told otherwise.
      `  npm run test:definitions -- ${parsed.slug}${folder === 'definitions' ? '' : ` --dir ${folder}`}`,
      '',
    );
    process.stdout.write(lines.join('\n'));
  }
}

/**
 * `npm run new-app -- <slug> [--name "Display Name"] [--dir definitions]`:
 * scaffolds a valid app folder (app file, a draft version with an API, an
 * API-key auth, one list action and its offline test cases) that passes
 * `npm run validate` and `npm run fmt -- --check` as generated, then prints
 * the commands to run next, naming the folder it wrote to.
 * Exits 2 on a usage error, an invalid slug, an existing folder, or an id or
 * slug an app of the folder or of the bundled definitions/ already uses.
 */
import path from 'node:path';
import { createApp } from '../engine/authoring/create-app.ts';

const USAGE = 'usage: npm run new-app -- <slug> [--name "Display Name"] [--dir <definitions folder>]\n';

function parseArgs(args: string[]): { slug: string; name: string | undefined; dir: string } | string {
  const positional: string[] = [];
  let name: string | undefined;
  let dir = process.env.DEFINITIONS_DIR ?? 'definitions';
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--name' || arg === '--dir') {
      const value = args[++i];
      if (value === undefined) return `${arg} needs a value`;
      if (arg === '--name') name = value;
      else dir = value;
    } else if (arg.startsWith('-')) return `unknown option ${arg}`;
    else positional.push(arg);
  }
  if (positional.length !== 1) return positional.length ? `one slug, got ${positional.join(' ')}` : 'missing the app slug';
  return { slug: positional[0]!, name, dir };
}

/** A word a shell reads back as it is: quoted when it holds a space or another special character. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

const parsed = parseArgs(process.argv.slice(2));
if (typeof parsed === 'string') {
  process.stderr.write(`${parsed}\n${USAGE}`);
  process.exitCode = 2;
} else {
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

import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseAdminCommand } from '../../../engine/admin/commands.ts';
import { parseCommandLine, usageLine, type CliDeclaration } from '../../../engine/platform/cli/command-line.ts';
import { ROOT } from '../../authoring/run-script.ts';

/**
 * The usage lines of README.md and docs/*.md work when typed as written:
 * every `npm run <script> ...` in a code block or an inline code span names
 * a script package.json has, and that script's own parser (the declaration
 * it runs with) accepts the arguments (a bare `npm run diff` inline in prose
 * names the tool and is not checked as a command). Lines with placeholders (`<dir>`,
 * `[--check]`) are templates: README's table of tools must show each tool's
 * usage line exactly as the tool prints it.
 */
const SCRIPTS = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
const DOCS = ['README.md', ...fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

interface Found {
  where: string;
  text: string;
  /** In a code block (typed as written), or an inline code span (where a bare `npm run diff` names the tool in prose). */
  fenced: boolean;
}

/** `npm run ...` as written in fenced code blocks and inline code spans. */
export function npmRunLines(markdown: string, file: string): Found[] {
  const found: Found[] = [];
  let fenced = false;
  markdown.split('\n').forEach((line, i) => {
    const where = `${file}:${i + 1}`;
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      return;
    }
    const candidates = fenced ? [line] : [...line.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
    for (const candidate of candidates) {
      // A prompt, environment assignments, then the command; a shell comment after it.
      const command = candidate
        .trim()
        .replace(/^\$ /, '')
        .replace(/^(?:[A-Z_][A-Z0-9_]*=(?:"[^"]*"|'[^']*'|\S+)\s+)+/, '')
        .replace(/\s+#.*$/, '');
      if (/^npm run [\w:-]+/.test(command)) found.push({ where, text: command, fenced });
    }
  });
  return found;
}

/** Shell words, quotes removed (no expansion: the docs do not rely on any inside an npm run line). */
function words(command: string): string[] {
  return [...command.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]!);
}

const isTemplate = (command: string) => /<[^>]+>|\[[^\]]*\]|\.\.\./.test(command);

async function declarationOf(script: string): Promise<CliDeclaration | 'admin' | null> {
  if (script === 'admin') return 'admin';
  const file = /^node --import tsx (scripts\/\S+\.ts)$/.exec(SCRIPTS[script] ?? '')?.[1];
  if (!file) return null;
  return ((await import(pathToFileURL(path.join(ROOT, file)).href)) as { cli: CliDeclaration }).cli;
}

describe('usage lines in README.md and docs/', function () {
  this.timeout(60_000);
  const all = DOCS.flatMap((file) => npmRunLines(fs.readFileSync(path.join(ROOT, file), 'utf8'), file));

  it('finds the lines it checks', () => {
    const texts = all.map((f) => f.text);
    expect(texts).to.include('npm run fmt -- --check');
    expect(texts).to.include('npm run admin -- credentials:reencrypt');
    expect(texts).to.include('npm run new-app -- acme-crm --name "Acme CRM"');
    expect(all.filter((f) => !isTemplate(f.text)).length).to.be.greaterThan(30);
  });

  it('every one names a script of package.json and passes its arguments after --', () => {
    const wrong = all.flatMap(({ where, text }) => {
      const [, , script, ...rest] = words(text);
      if (!Object.hasOwn(SCRIPTS, script!)) return [`${where}: ${text}: package.json has no script "${script}"`];
      if (rest.length && rest[0] !== '--' && !isTemplate(text)) return [`${where}: ${text}: npm takes what is before -- as its own options`];
      return [];
    });
    expect(wrong).to.deep.equal([]);
  });

  it('every one without placeholders is accepted by its script, as typed', async () => {
    const refused: string[] = [];
    for (const { where, text, fenced } of all.filter((f) => !isTemplate(f.text))) {
      const [, , script, ...rest] = words(text);
      if (!fenced && rest.length === 0) continue; // the tool's name in prose: `noted` by `npm run diff`
      const args = rest[0] === '--' ? rest.slice(1) : rest;
      const declaration = await declarationOf(script!);
      if (declaration === null) continue; // start, test, typecheck: not tools of scripts/
      let refusal: string | null = null;
      if (declaration === 'admin') {
        const outcome = parseAdminCommand(args);
        if ('exitCode' in outcome && outcome.exitCode !== 0) refusal = outcome.output;
      } else {
        const outcome = parseCommandLine(declaration, args);
        if (outcome.kind === 'refused') refusal = outcome.text;
      }
      if (refusal !== null) refused.push(`${where}: ${text}: ${refusal.split('\n')[0]}`);
    }
    expect(refused).to.deep.equal([]);
  });

  it("README's table of tools shows each tool's own usage line", async () => {
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const rows = [...readme.matchAll(/^\| `(npm run [^`]+)` \|/gm)].map((m) => m[1]!);
    expect(rows.length).to.be.greaterThan(5);
    for (const row of rows) {
      const declaration = await declarationOf(words(row)[2]!);
      expect(declaration, row).to.be.an('object');
      expect(row).to.equal(usageLine(declaration as CliDeclaration).replace(/^usage: /, ''));
    }
  });
});

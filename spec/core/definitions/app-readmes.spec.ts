import fs from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { loadDefinitions } from '../../../engine/core/definitions/index.ts';
import { ROOT } from '../../helpers/process.ts';

const DIR = path.join(ROOT, 'definitions');
const SECTIONS = ['## Covers', '## Follows', '## Does not cover'];

const loaded = await loadDefinitions(DIR);
if (!loaded.ok) throw new Error(`definitions/ does not load (npm run validate): ${loaded.problems.length} problems`);
const apps = [...loaded.snapshot.apps.values()].sort((a, b) => a.file.localeCompare(b.file));

/** The Markdown headings of a text (outside fenced code), with the text under each up to the next. */
function headings(text: string): { heading: string; body: string }[] {
  const found: { heading: string; body: string }[] = [];
  let fenced = false;
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    if (!fenced && /^#{1,6} /.test(line)) found.push({ heading: line.trimEnd(), body: '' });
    else if (found.length) found[found.length - 1]!.body += `${line}\n`;
  }
  return found;
}

/**
 * Every app folder of definitions/ has a README.md (docs/definitions.md,
 * "Adding an app, end to end"): `# <App name>` as in app.yaml, a summary
 * paragraph, then exactly `## Covers`, `## Follows` and `## Does not cover`,
 * in this order, none empty.
 */
describe('the README.md of every app folder of definitions/', () => {
  for (const app of apps) {
    const folder = app.file.split('/')[0]!;
    it(`${folder}/README.md: # ${app.name}, a summary, then ${SECTIONS.join(', ')}`, async () => {
      const file = path.join(DIR, folder, 'README.md');
      const text = await fs.readFile(file, 'utf8').catch(() => null);
      expect(text, `definitions/${folder}/README.md is missing: write it (docs/definitions.md, "Adding an app, end to end")`).to.be.a('string');
      const found = headings(text!);
      expect(text!.split('\n', 1)[0], `definitions/${folder}/README.md starts with its title line`).to.equal(`# ${app.name}`);
      const [title, ...rest] = found;
      expect(title!.body.trim(), `definitions/${folder}/README.md has a summary paragraph under its title`).not.to.equal('');
      expect(
        rest.filter((h) => h.heading.startsWith('## ') || h.heading.startsWith('# ')).map((h) => h.heading),
        `definitions/${folder}/README.md has exactly these sections, in this order`,
      ).to.deep.equal(SECTIONS);
      for (const section of SECTIONS) {
        // A section runs to the next heading of its level or above: ### subheadings and their text belong to it.
        const at = found.findIndex((h) => h.heading === section);
        const end = found.findIndex((h, i) => i > at && /^#{1,2} /.test(h.heading));
        const body = found.slice(at, end < 0 ? undefined : end).map((h, i) => (i === 0 ? h.body : `${h.heading}\n${h.body}`)).join('');
        expect(body.trim(), `${section} of definitions/${folder}/README.md is empty`).not.to.equal('');
      }
    });
  }
});

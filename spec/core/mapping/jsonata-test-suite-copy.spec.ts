import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect } from 'chai';
import { SUITE_DIR } from '../../support/jsonata-test-suite.ts';

/** The vendored suite is jsonata's, at the version the gateway pins, file for file (see its README). */
const ROOT = join(import.meta.dirname, '..', '..', '..');
const OURS = new Set(['README.md', 'SOURCE.json', 'MANIFEST', 'LICENSE', '.gitattributes']);

/** git's blob hash of a file's bytes, as `git ls-tree` lists it. */
function gitBlobHash(bytes: Buffer): string {
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(SUITE_DIR, join(entry.parentPath, entry.name)).split('\\').join('/'));
}

describe('the vendored jsonata test suite is the original', () => {
  const source = JSON.parse(readFileSync(join(SUITE_DIR, 'SOURCE.json'), 'utf8')) as { tag: string; version: string; commit: string };

  it("is of the jsonata version package.json pins and node_modules holds", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const installed = JSON.parse(readFileSync(join(ROOT, 'node_modules', 'jsonata', 'package.json'), 'utf8')) as { version: string };
    expect(pkg.dependencies.jsonata, 'an exact pin').to.equal(source.version);
    expect(installed.version).to.equal(source.version);
    expect(source.tag).to.equal(`v${source.version}`);
    expect(source.commit).to.match(/^[0-9a-f]{40}$/);
  });

  it('holds every file of the tag, byte for byte, and nothing else', () => {
    const manifest = new Map(
      readFileSync(join(SUITE_DIR, 'MANIFEST'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => {
          const [hash, path] = line.split('  ');
          return [path!, hash!] as const;
        }),
    );
    const present = filesUnder(SUITE_DIR).filter((path) => !OURS.has(path));
    expect(present.filter((path) => !manifest.has(path)), 'files not in the original').to.deep.equal([]);
    expect([...manifest.keys()].filter((path) => !present.includes(path)), 'files of the original missing').to.deep.equal([]);
    const changed = present.filter((path) => gitBlobHash(readFileSync(join(SUITE_DIR, path))) !== manifest.get(path));
    expect(changed, 'files that differ from the original').to.deep.equal([]);
  });

  it("keeps jsonata's MIT licence notice", () => {
    const licence = readFileSync(join(SUITE_DIR, 'LICENSE'), 'utf8');
    expect(licence).to.match(/^MIT license/);
    expect(licence).to.include('The above copyright notice and this permission notice shall be included');
  });
});

import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { promises as fs, readFileSync } from 'node:fs';
import path from 'node:path';
import { commandBlocks, serverOf } from '../../../scripts/docs/command-blocks.ts';
import { defaultDocuments, readDocuments, slowestCommands, WHAT_TO_FIX } from '../../../scripts/docs/check-commands.ts';
import { ROOT } from '../../helpers/process.ts';
import { tempDir } from '../../helpers/temp-dir.ts';

const FIXTURES = 'spec/fixtures/docs-check';

/** `npm run check:docs -- <args>` as typed, from the checkout. */
function check(...args: string[]): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/docs/check-commands.ts', ...args], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += String(chunk)));
  child.stderr.on('data', (chunk) => (output += String(chunk)));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, output })));
}

describe('the docs check (npm run check:docs): every command line of the documents runs as typed, in order, on a fresh clone', function () {
  this.timeout(240_000);

  describe('reading the command blocks', () => {
    it('takes ```sh blocks to run, ```sh example ones not to, ```sh long ones for their options; joins continued lines; drops comments', () => {
      const text = [
        '```sh',
        '# a comment',
        'curl -s -X POST localhost:8080/v2/x \\',
        "  -d '{}'",
        '',
        'echo done   # trailing words',
        '```',
        '   ```sh example',
        '   docker exec <container> ls',
        '   ```',
        '```sh long',
        'npm run bench',
        '```',
        '```json',
        '{"not": "a command"}',
        '```',
      ].join('\n');
      const { blocks, problems } = commandBlocks('doc.md', text);
      expect(problems).to.deep.equal([]);
      expect(blocks.map((b) => [b.line, b.kind, b.commands.map((c) => [c.line, c.text])])).to.deep.equal([
        [1, 'run', [[3, "curl -s -X POST localhost:8080/v2/x \\\n  -d '{}'"], [6, 'echo done   # trailing words']]],
        [8, 'example', [[9, 'docker exec <container> ls']]],
        [11, 'long', [[12, 'npm run bench']]],
      ]);
    });

    it('refuses a placeholder in a block that runs, a bash or console fence, and an unknown word after sh, each with its line and what to do', () => {
      const text = ['```sh', 'curl -H "Authorization: Bearer <your API key>" x', 'CID=con_…', 'npm run fmt -- path/to/dir', 'cat <<EOF > file', 'ls 2>&1 # <fine in a comment>', '```', '```bash', 'ls', '```', '```sh maybe', 'ls', '```'].join('\n');
      const { problems } = commandBlocks('doc.md', text);
      expect(problems.map((p) => [p.line, p.message.split(',')[0]])).to.deep.equal([
        [2, '"<your API key>" looks like a placeholder'],
        [3, '"…" looks like a placeholder'],
        [4, '"path/to/" looks like a placeholder'],
        [8, 'a ```bash block: write command blocks as ```sh (run by the check)'],
        [11, '```sh maybe: the words after sh may be "example" (not run) or "long" (options checked only)'],
      ]);
      expect(problems[0]!.message).to.include('or mark the block ```sh example');
    });

    it('knows the servers a reader leaves running in a terminal, and their ports', () => {
      expect(serverOf('npm ci && npm start')).to.deep.equal({ port: 8080, what: 'the gateway' });
      expect(serverOf("APP_BASE_URLS='{\"a\":\"b c\"}' PORT=9000 \\\n  npm start  # comment")).to.deep.equal({ port: 9000, what: 'the gateway' });
      expect(serverOf('npm run dev')).to.deep.equal({ port: 8080, what: 'the gateway' });
      expect(serverOf('DEMO_PORT=4020 npm run demo:upstream')).to.deep.equal({ port: 4020, what: 'the demo to-do API' });
      expect(serverOf('GATEWAY_URL=http://localhost:8080 node examples/embedding/server.mjs')).to.deep.equal({ port: 3000, what: 'the example backend' });
      expect(serverOf('npm run start:something')).to.equal(null);
      expect(serverOf('npm test')).to.equal(null);
    });

    it('finds no problem in README.md and docs/*.md as they are (the run itself is CI\'s: .ci/run)', () => {
      const files = defaultDocuments(ROOT);
      expect(files[0]).to.equal('README.md');
      expect(files).to.include('docs/embedding.md');
      const { problems } = readDocuments(ROOT, files);
      expect(problems.map((p) => `${p.file}:${p.line} ${p.message}`)).to.deep.equal([]);
    });

    it('documents its convention in the README, Tests', () => {
      const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
      const tests = readme.slice(readme.indexOf('## Tests'));
      expect(tests).to.include('npm run check:docs').and.include('```sh example').and.include('```sh long');
    });
  });

  describe('running documents', () => {
    it('runs a document\'s blocks in one session on a fresh clone, leaves example blocks out and checks long ones\' options: exit 0', async () => {
      const { code, output } = await check(`${FIXTURES}/runs.md`);
      expect(output).to.include(`ok   ${FIXTURES}/runs.md: 2 commands ran, 1 long one checked (options only), 1 example block not run`);
      // Each document's slowest commands and its wall time, and the whole run's: CI pays for them.
      expect(output).to.match(new RegExp(`ok   ${FIXTURES}/runs\\.md: .* not run; slowest: ${FIXTURES}/runs\\.md:\\d+ \\d+\\.\\d s.* \\(\\d+(\\.\\d)? s\\)\n`));
      expect(output).to.match(/every command of 1 documents ran as typed \(\d+(\.\d)? s\)/);
      expect(code, output).to.equal(0);
    });

    it('stops at the first command that fails and names its file and line, the command, what it printed and what to fix: exit 1', async () => {
      const { code, output } = await check(`${FIXTURES}/fails.md`);
      expect(output).to.include(`FAIL ${FIXTURES}/fails.md:10 failed (exit 2):\n  $ ls no-such-file-in-the-clone\n  it printed:\n    ls: cannot access 'no-such-file-in-the-clone': No such file or directory`);
      expect(output).to.include(WHAT_TO_FIX);
      expect(output).not.to.include('never printed');
      expect(output).to.include('1 of 1 documents failed');
      expect(code).to.equal(1);
    });

    it('starts a server in the background until its port answers; a curl the server refuses fails, with the answer and the server\'s output', async () => {
      const { code, output } = await check(`${FIXTURES}/server.md`);
      expect(output).to.include(`FAIL ${FIXTURES}/server.md:6 failed (exit 22):\n  $ curl -s localhost:4321/v1/todos\n  it printed:`);
      expect(output).to.include('The requested URL returned error: 401');
      expect(output).to.match(/the server on port 4321 \(.*port-4321\.log\), its last lines:\n(.*\n)*.*demo to-do API on http:\/\/127\.0\.0\.1:4321/);
      expect(code).to.equal(1);
    });

    it('stops a document at --timeout and leaves none of its servers running (each is a process group of its own)', async () => {
      const { code, output } = await check(`${FIXTURES}/hangs.md`, '--timeout=20');
      expect(output).to.match(new RegExp(`FAIL ${FIXTURES}/hangs\\.md:\\d+ did not finish within 20 s \\(--timeout\\)`));
      expect(code).to.equal(1);
      // The demo server of the document (DEMO_PORT=4329, started before the session was killed) is gone.
      const left = (await fs.readdir('/proc')).filter((pid) => /^\d+$/.test(pid)).filter((pid) => {
        try {
          return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes('DEMO_PORT=4329');
        } catch {
          return false;
        }
      });
      expect(left, 'processes of the document left running').to.deep.equal([]);
    });

    it('names the three slowest commands from the session\'s start times', async () => {
      const dir = await tempDir();
      try {
        await fs.writeFile(path.join(dir.dir, 'times.tsv'), ['100.0\ta.md:1', '100.5\ta.md:2', '112.5\ta.md:3', '112.9\ta.md:4', '120.0\ta.md:5', '120.1\tend', ''].join('\n'));
        expect(slowestCommands(dir.dir)).to.equal('a.md:2 12.0 s, a.md:4 7.1 s, a.md:1 0.5 s');
        expect(slowestCommands(path.join(dir.dir, 'none'))).to.equal('');
      } finally {
        await dir.cleanup();
      }
    });

    it('refuses placeholders and wrong fences before running anything: exit 1', async () => {
      const { code, output } = await check(`${FIXTURES}/placeholder.md`);
      expect(output).to.include(`FAIL ${FIXTURES}/placeholder.md:4 "<command>" looks like a placeholder`);
      expect(output).to.include(`FAIL ${FIXTURES}/placeholder.md:7 a \`\`\`bash block`);
      expect(output).to.include('nothing was run');
      expect(code).to.equal(1);
    });
  });
});

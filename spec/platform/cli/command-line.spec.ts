import { spawn } from 'node:child_process';
import { expect } from 'chai';
import { helpText, parseCommandLine, usageLine } from '../../../engine/platform/cli/command-line.ts';

const tool = {
  command: 'npm run tool --',
  summary: 'Does a thing to a folder.',
  options: {
    check: { type: 'boolean' as const, description: 'write nothing' },
    dir: { type: 'string' as const, value: '<folder>', description: 'where' },
    name: { type: 'string' as const, value: '<name>', required: true as const, description: 'what it is called' },
  },
  positionals: [
    { name: '<app>', description: 'the app' },
    { name: '<version>', description: 'its version', optional: true as const },
  ],
  examples: ['npm run tool -- --name x acme'],
};

describe('command lines (engine/platform/cli/command-line.ts)', () => {
  it('makes the usage line and the help from the one declaration', () => {
    expect(usageLine(tool)).to.equal('usage: npm run tool -- [--check] [--dir <folder>] --name <name> <app> [<version>]');
    expect(helpText(tool)).to.equal(
      [
        'usage: npm run tool -- [--check] [--dir <folder>] --name <name> <app> [<version>]',
        '',
        'Does a thing to a folder.',
        '',
        'arguments:',
        '  <app>      the app',
        '  <version>  its version',
        '',
        'options:',
        '  --check         write nothing',
        '  --dir <folder>  where',
        '  --name <name>   what it is called',
        '  -h, --help      show this help',
        '',
        'examples:',
        '  npm run tool -- --name x acme',
        '',
      ].join('\n'),
    );
    expect(usageLine({ command: 'npm run gen:types --', summary: 's', options: {} })).to.equal('usage: npm run gen:types');
  });

  it('reads options and positionals in any order, and `--` before positionals', () => {
    expect(parseCommandLine(tool, ['acme', '--name', 'x', '--dir=defs', '--check'])).to.deep.equal({
      kind: 'run',
      values: { name: 'x', dir: 'defs', check: true },
      positionals: ['acme'],
    });
    // What `npm run tool -- --check -- acme` passes: the second `--` ends the options.
    expect(parseCommandLine(tool, ['--check', '--name', 'x', '--', '--acme'])).to.deep.include({ kind: 'run', positionals: ['--acme'] });
  });

  it('answers --help and -h, even after a mistake on the same line', () => {
    for (const argv of [['--help'], ['-h'], ['--nope', '--help'], ['a', 'b', 'c', '-h']]) {
      expect(parseCommandLine(tool, argv), argv.join(' ')).to.deep.equal({ kind: 'help', text: helpText(tool) });
    }
  });

  it('refuses with the mistake and the usage line', () => {
    const usage = usageLine(tool);
    const refused = (argv: string[]) => {
      const outcome = parseCommandLine(tool, argv);
      expect(outcome.kind, argv.join(' ')).to.equal('refused');
      return (outcome as { text: string }).text;
    };
    expect(refused(['--fix', 'acme', '--name', 'x'])).to.equal(`unknown option --fix\n${usage}`);
    expect(refused(['--fix=1', 'acme', '--name', 'x'])).to.equal(`unknown option --fix\n${usage}`);
    expect(refused(['-x', 'acme', '--name', 'x'])).to.equal(`unknown option -x\n${usage}`);
    expect(refused(['acme', '--name'])).to.equal(`--name needs a value\n${usage}`);
    expect(refused(['acme', '--name', 'x', '--check=yes'])).to.equal(`--check takes no value\n${usage}`);
    // A value that starts with a dash looks like an option to parseArgs: said as such, not as "takes no value".
    expect(refused(['acme', '--name', '-1'])).to.equal(`--name needs a value (one starting with a dash is written --name=-1)\n${usage}`);
    expect(refused(['--name', 'x'])).to.equal(`missing <app>\n${usage}`);
    expect(refused(['acme', '1', '2', '3', '--name', 'x'])).to.equal(`unexpected arguments 2 3\n${usage}`);
    expect(refused(['acme'])).to.equal(`--name is required\n${usage}`);
  });

  it('ends quietly with its own exit code when the reader closes the pipe early (`--help | head -1`)', async () => {
    // The reader is gone before the tool writes a line: the write fails with EPIPE.
    for (const tool of ['scripts/validate.ts', 'scripts/catalogue.ts']) {
      const child = spawn(process.execPath, ['--import', 'tsx', tool, '--help'], { stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout.destroy();
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect(stderr, tool).to.equal('');
      expect(code, tool).to.equal(0);
    }
  });
});

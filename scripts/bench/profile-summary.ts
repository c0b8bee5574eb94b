/**
 * Summarises a .cpuprofile written by `npm run bench -- --cpu-prof=<target>`:
 * busy time by category (jsonata, GC, koa, undici, ...), the functions with
 * the most self time, and the engine entry points the time was spent under.
 *
 *   node --import tsx scripts/bench/profile-summary.ts .tmp/profiles/CPU.*.cpuprofile [top]
 */
import fs from 'node:fs';
import { commandLine, isEntry } from '../../engine/platform/cli/command-line.ts';

export const cli = {
  command: 'node --import tsx scripts/bench/profile-summary.ts',
  summary:
    'Summarises a .cpuprofile written by npm run bench -- --cpu-prof=<target>: busy time by category, the functions with the most self time, and the engine functions the time was spent under.',
  options: {},
  positionals: [
    { name: '<file.cpuprofile>', description: 'the profile' },
    {
      name: '<top>',
      description: 'how many functions to list (default 25)',
      optional: true as const,
    },
  ],
  examples: ['node --import tsx scripts/bench/profile-summary.ts .tmp/profiles/CPU.*.cpuprofile 40'],
};

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

const args = isEntry(import.meta.url) ? commandLine(cli) : null;
if (args) summarise(args.positionals[0]!, Number(args.positionals[1] ?? 25));

function summarise(file: string, top: number): void {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

  const short = (url: string) => url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*?\/(engine|scripts)\//, '$1/');
  const label = (n: Node) => `${n.callFrame.functionName || '(anonymous)'} ${short(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;

  function category(n: Node): string | null {
    const { url, functionName } = n.callFrame;
    if (functionName === '(idle)') return null;
    if (functionName === '(garbage collector)') return 'GC';
    if (/jsonata/.test(url)) return 'jsonata';
    if (/\/engine\/mapping\//.test(url)) return 'engine/core/mapping (guard, toJson)';
    if (/node_modules\/(koa|koa-compose|@koa|delegates|co-body|raw-body|ee-first|on-finished|type-is|accepts)/.test(url)) return 'koa, router, body parsing';
    if (/undici/.test(url)) return 'undici';
    if (/ajv/.test(url)) return 'ajv';
    if (/yaml/.test(url)) return 'yaml';
    if (/nedb/.test(url)) return 'nedb store';
    if (/modules\/|tsx\/|cjs-module-lexer|esbuild/.test(url)) return 'module loading';
    if (/\/engine\//.test(url)) return 'engine (other)';
    if (/^node:|^$/.test(url)) return 'node core and syscalls';
    return `other (${short(url).split('/')[0]})`;
  }

  /** The innermost engine function above a node: where in the gateway the time was spent. */
  function engineEntry(n: Node): string {
    let id: number | undefined = n.id;
    while (id !== undefined) {
      const m = byId.get(id)!;
      if (/\/engine\//.test(m.callFrame.url)) return label(m);
      id = parent.get(id);
    }
    return '(outside engine/)';
  }

  let busy = 0;
  const categories = new Map<string, number>();
  const functions = new Map<string, number>();
  const entries = new Map<string, number>();
  for (const n of profile.nodes) {
    const us = selfUs.get(n.id) ?? 0;
    const c = us ? category(n) : null;
    if (!c) continue;
    busy += us;
    categories.set(c, (categories.get(c) ?? 0) + us);
    functions.set(label(n), (functions.get(label(n)) ?? 0) + us);
    entries.set(engineEntry(n), (entries.get(engineEntry(n)) ?? 0) + us);
  }
  const print = (title: string, map: Map<string, number>, count: number) => {
    process.stdout.write(`\n${title}\n`);
    for (const [key, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, count)) {
      process.stdout.write(`${((us / busy) * 100).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(6)} ms  ${key}\n`);
    }
  };
  process.stdout.write(`busy ${(busy / 1000).toFixed(0)} ms (idle excluded)\n`);
  print('by category (self time)', categories, 20);
  print('functions (self time)', functions, top);
  print('innermost engine function (self time below it)', entries, top);
}

/**
 * The Dockerfile read as data: its stages and, in order, their instructions
 * (continuation lines joined, comments dropped, JSON-form arguments parsed).
 * Enough of the syntax for this repository's Dockerfile, which
 * spec/build/dockerfile.spec.ts checks and rehearse.ts runs without a
 * container engine; an instruction it does not know is kept, not guessed at.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PACKAGE_ROOT } from '../../engine/platform/package-root.ts';

export interface Instruction {
  keyword: string;
  /** The text after the keyword (flags included). */
  text: string;
  /** `--name=value` flags at the start of the text (COPY --from, RUN --mount, HEALTHCHECK --interval). */
  flags: Record<string, string>;
  /** The text after the flags. */
  rest: string;
  /** The exec (JSON array) form's arguments, when the rest is one. */
  exec: string[] | null;
}

export interface Stage {
  name: string;
  base: string;
  instructions: Instruction[];
}

export const DOCKERFILE = path.join(PACKAGE_ROOT, 'Dockerfile');

export function readDockerfile(file = DOCKERFILE): { args: Record<string, string>; stages: Stage[] } {
  const lines = readFileSync(file, 'utf8').split('\n');
  const joined: string[] = [];
  let current = '';
  for (const line of lines) {
    if (/^\s*#/.test(line) && !current) continue;
    if (/^\s*#/.test(line)) continue;
    const continued = /\\\s*$/.test(line);
    current += (current ? ' ' : '') + line.replace(/\\\s*$/, '').trim();
    if (!continued) {
      if (current.trim()) joined.push(current.trim());
      current = '';
    }
  }
  const args: Record<string, string> = {};
  const stages: Stage[] = [];
  for (const line of joined) {
    const [, keyword = '', text = ''] = /^(\S+)\s*(.*)$/.exec(line) ?? [];
    const instruction = parseInstruction(keyword.toUpperCase(), text);
    if (instruction.keyword === 'FROM') {
      const [base = '', , name] = instruction.rest.split(/\s+/);
      stages.push({ name: name ?? String(stages.length), base, instructions: [] });
    } else if (instruction.keyword === 'ARG' && !stages.length) {
      const [name = '', value = ''] = instruction.rest.split('=');
      args[name] = value;
    } else {
      stages.at(-1)?.instructions.push(instruction);
    }
  }
  return { args, stages };
}

function parseInstruction(keyword: string, text: string): Instruction {
  const flags: Record<string, string> = {};
  let rest = text;
  for (let match = /^--([\w-]+)=(\S+)\s*/.exec(rest); match; match = /^--([\w-]+)=(\S+)\s*/.exec(rest)) {
    flags[match[1]!] = match[2]!;
    rest = rest.slice(match[0].length);
  }
  // HEALTHCHECK [flags] CMD [...]: the command is what follows CMD.
  if (keyword === 'HEALTHCHECK' && rest.startsWith('CMD ')) rest = rest.slice(4).trim();
  let exec: string[] | null = null;
  if (rest.startsWith('[')) {
    try {
      exec = JSON.parse(rest) as string[];
    } catch {
      exec = null;
    }
  }
  return { keyword, text, flags, rest, exec };
}

/** The ENV instructions of a stage, as one map (`ENV A=1 B=2`, quotes not supported). */
export function stageEnv(stage: Stage): Record<string, string> {
  const env: Record<string, string> = {};
  for (const instruction of stage.instructions.filter((i) => i.keyword === 'ENV')) {
    for (const pair of instruction.rest.split(/\s+/)) {
      const at = pair.indexOf('=');
      if (at > 0) env[pair.slice(0, at)] = pair.slice(at + 1);
    }
  }
  return env;
}

/** The last instruction of a kind in a stage (CMD, USER, HEALTHCHECK: the last one counts). */
export function last(stage: Stage, keyword: string): Instruction | undefined {
  return stage.instructions.filter((i) => i.keyword === keyword).at(-1);
}

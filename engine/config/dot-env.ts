import fs from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';
import { ConfigError } from './config.ts';

/** What readDotEnv read: the file and the names it holds (never the values). */
export interface DotEnvRead {
  file: string;
  names: string[];
}

/**
 * Development convenience: `.env` in the working directory, read with Node's
 * own `process.loadEnvFile` into `process.env` when it exists and NODE_ENV is
 * not `production`. A variable already set in the environment wins over the
 * file. Returns what was read, for the start to log, or null.
 */
export function readDotEnv(cwd = process.cwd()): DotEnvRead | null {
  if (process.env.NODE_ENV === 'production') return null;
  const file = path.join(cwd, '.env');
  let content: string;
  try {
    content = fs.readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    throw new ConfigError('.env', `cannot be read: ${file} (${code ?? (error as Error).message})`);
  }
  process.loadEnvFile(file);
  return { file, names: Object.keys(parseEnv(content)) };
}

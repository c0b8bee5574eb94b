import fs from 'node:fs';
import { ConfigError } from './config.ts';

type Env = Record<string, string | undefined>;

/**
 * The variables that carry a secret and may instead be given as a file
 * (`X_FILE`, the Docker/Kubernetes-secret convention): the file's content,
 * trailing newlines trimmed, becomes `X`. A new secret variable is one more
 * name here.
 */
export const SECRET_VARIABLES = ['ENCRYPTION_KEY', 'BOOTSTRAP_API_KEY', 'DATABASE_URL', 'MONGODB_URI', 'METRICS_TOKEN'] as const;

/**
 * Returns `env` with every `X_FILE` of SECRET_VARIABLES read into `X` (and
 * `X_FILE` removed), so loadConfig stays pure over its input. Both `X` and
 * `X_FILE` set, or a file missing, unreadable or empty, is a ConfigError
 * naming the variable and the path, never the content.
 */
export function readSecretFiles(env: Env, names: readonly string[] = SECRET_VARIABLES, readFile: (file: string) => string = (file) => fs.readFileSync(file, 'utf8')): Env {
  const result: Env = { ...env };
  for (const name of names) {
    const fileVariable = `${name}_FILE`;
    const file = env[fileVariable];
    if (file === undefined) continue;
    if (file.trim() === '') throw new ConfigError(fileVariable, 'is set but empty; unset it, or give the path of the file holding the value');
    if (env[name] !== undefined) throw new ConfigError(fileVariable, `and ${name} are both set; set one of them`);
    let content: string;
    try {
      content = readFile(file);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new ConfigError(fileVariable, `names a file that cannot be read: ${file}${code ? ` (${code})` : ''}`);
    }
    const value = content.replace(/[\r\n]+$/, '');
    if (value.trim() === '') throw new ConfigError(fileVariable, `names an empty file: ${file}`);
    result[name] = value;
    delete result[fileVariable];
  }
  return result;
}

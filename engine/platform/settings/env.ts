import { isIP } from 'node:net';

/**
 * Reading settings from the environment: the primitives every module's own
 * settings reader uses (a module owns its variables' names, defaults and
 * checks; engine/config/ only gathers them). A missing or malformed value is
 * a ConfigError naming the variable and the problem, and the start stops
 * with that one line.
 */
export type Env = Record<string, string | undefined>;

export class ConfigError extends Error {
  constructor(readonly variable: string, problem: string) {
    super(`${variable} ${problem}`);
    this.name = 'ConfigError';
  }
}

/** The trimmed value; unset is undefined, and set but blank is an error (unset it to get the default). */
export function optional(env: Env, name: string): string | undefined {
  const value = env[name];
  if (value === undefined) return undefined;
  if (value.trim() === '') throw new ConfigError(name, 'is set but empty; unset it to use the default');
  return value.trim();
}

export function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = optional(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(name, `must be an integer from ${min} to ${max} (got "${raw}")`);
  }
  return Number(raw);
}

export function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = optional(env, name);
  if (raw === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(name, `must be one of ${allowed.join(', ')} (got "${raw}")`);
  }
  return raw as T;
}

/** A value a parser checks: its Error becomes a ConfigError naming the variable. */
export function parsed<T>(env: Env, name: string, parse: (raw: string | undefined) => T): T {
  const raw = optional(env, name);
  try {
    return parse(raw);
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(name, (error as Error).message);
  }
}

/** An absolute http(s) URL without query or fragment; a trailing slash is dropped so paths can be appended. */
export function baseUrl(env: Env, name: string): string | undefined {
  const raw = optional(env, name);
  if (raw === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    url = new URL('invalid:');
  }
  if (!['http:', 'https:'].includes(url.protocol) || url.search || url.hash || url.username || url.password) {
    throw new ConfigError(name, `must be an http:// or https:// URL without query, fragment or credentials (got "${raw}")`);
  }
  return raw.replace(/\/+$/, '');
}

/**
 * An address to listen on: an IP literal (0.0.0.0, ::, 127.0.0.1) or a
 * hostname the resolver can be asked for (letters, digits and hyphens in
 * dot-separated labels of at most 63 characters, not all-numeric at the end).
 * Checked here so that a typo stops the start naming the variable, before the
 * data directory is locked, not as a resolver error when the listener opens.
 */
export function listenHost(env: Env, name: string): string | undefined {
  const raw = optional(env, name);
  if (raw === undefined || isIP(raw) !== 0) return raw;
  const labels = raw.replace(/\.$/, '').split('.');
  const hostname =
    raw.length <= 253 && labels.every((label) => /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/i.test(label)) && !/^\d+$/.test(labels[labels.length - 1]!);
  if (!hostname) throw new ConfigError(name, `must be an IP address (e.g. 0.0.0.0, ::, 127.0.0.1) or a hostname such as localhost (got "${raw}")`);
  return raw;
}

import { readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { name: string; version: string };

/**
 * The User-Agent of every outbound call that does not carry its own (api.yaml
 * `headers`, a Header argument): the gateway's name and version. Many APIs
 * refuse a request without one.
 */
export const DEFAULT_USER_AGENT = `${pkg.name}/${pkg.version}`;

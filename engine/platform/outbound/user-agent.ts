import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PACKAGE_ROOT } from '../package-root.ts';

const pkg = JSON.parse(readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { name: string; version: string };

/**
 * The User-Agent of every outbound call that does not carry its own (api.yaml
 * `headers`, a Header argument): the gateway's name and version. Many APIs
 * refuse a request without one.
 */
export const DEFAULT_USER_AGENT = `${pkg.name}/${pkg.version}`;

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import path from 'node:path';
import { PACKAGE_ROOT } from '../../../platform/package-root.ts';

/** The browser SDK's one source: an ES module, served as it is and, wrapped, as a classic script. */
export const SDK_MODULE_FILE = path.join(PACKAGE_ROOT, 'web', 'sdk', 'connect.mjs');

export interface SdkAsset {
  body: Buffer;
  /** The body gzipped once (about a third of it: the JSDoc compresses well). */
  gzipped: Buffer;
  /** A strong ETag of the body: it changes only when the file does (a new gateway version). */
  etag: string;
}

export interface SdkAssets {
  /** /sdk/connect.mjs */
  module: SdkAsset;
  /** /sdk/connect.js */
  classic: SdkAsset;
}

/** The module's closing `export { a, b, c };`, its only export: the names the classic script publishes. */
const EXPORT_LIST = /\nexport \{([^}]*)\};\s*$/;
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/**
 * The classic script made from the module: its body in a function scope (nothing leaks but the one global),
 * publishing the exported names as `window.GatewayConnect`. The module must import nothing and export only
 * in one closing `export { ... };` list of plain names, or the gateway refuses to start (a mistake in the
 * repository, not in a request).
 */
export function classicScript(moduleSource: string): string {
  const match = EXPORT_LIST.exec(moduleSource);
  if (!match) throw new Error(`${SDK_MODULE_FILE} must end with one \`export { ... };\` list: the classic script publishes those names`);
  const body = moduleSource.slice(0, match.index);
  if (/^\s*(import|export)\b/m.test(body)) throw new Error(`${SDK_MODULE_FILE} may import nothing and export only in its closing \`export { ... };\` list`);
  const names = match[1]!.split(',').map((name) => name.trim()).filter(Boolean);
  const bad = names.find((name) => !IDENTIFIER.test(name));
  if (bad !== undefined || names.length === 0) throw new Error(`${SDK_MODULE_FILE}: the closing export list must name plain identifiers (got ${JSON.stringify(bad ?? '')})`);
  return [
    '/* The integration gateway browser SDK (classic script): window.GatewayConnect. Also served as an ES module at /sdk/connect.mjs. */',
    '(function () {',
    "'use strict';",
    body.trimEnd(),
    '',
    `globalThis.GatewayConnect = Object.freeze({ ${names.join(', ')} });`,
    '})();',
    '',
  ].join('\n');
}

function asset(text: string): SdkAsset {
  const body = Buffer.from(text, 'utf8');
  return { body, gzipped: gzipSync(body, { level: 9 }), etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
}

/** Reads the module once (at start) and makes the classic script from it. */
export function loadSdkAssets(file = SDK_MODULE_FILE): SdkAssets {
  const source = readFileSync(file, 'utf8');
  return { module: asset(source), classic: asset(classicScript(source)) };
}

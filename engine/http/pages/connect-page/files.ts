import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PACKAGE_ROOT } from '../../../platform/package-root.ts';

/** The Connect page's browser files: plain HTML, CSS and JavaScript in web/connect/, served as they are (no build step). */
export const CONNECT_PAGE_DIR = path.join(PACKAGE_ROOT, 'web', 'connect');

/** The files served, and their types: nothing else under web/connect/ is reachable. */
export const CONNECT_FILES: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'oauth-return.html': 'text/html; charset=utf-8',
  'connect.js': 'text/javascript; charset=utf-8',
  'connect.css': 'text/css; charset=utf-8',
  'oauth-return.js': 'text/javascript; charset=utf-8',
  'messages.js': 'text/javascript; charset=utf-8',
  'messages-en.js': 'text/javascript; charset=utf-8',
  'messages-de.js': 'text/javascript; charset=utf-8',
  'messages-fr.js': 'text/javascript; charset=utf-8',
  'icon.svg': 'image/svg+xml',
};

export interface PageFile {
  type: string;
  body: Buffer;
  /** A strong validator from the content: a changed file (an upgrade) is a new ETag. */
  etag: string;
}

/** Reads each file once, on first use, and keeps it: the files do not change while the gateway runs. */
export class PageFiles {
  readonly #loaded = new Map<string, PageFile>();

  constructor(readonly dir = CONNECT_PAGE_DIR) {}

  get(name: string): PageFile | undefined {
    if (!Object.hasOwn(CONNECT_FILES, name)) return undefined;
    let file = this.#loaded.get(name);
    if (!file) {
      const body = readFileSync(path.join(this.dir, name));
      file = { type: CONNECT_FILES[name]!, body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
      this.#loaded.set(name, file);
    }
    return file;
  }
}

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

/**
 * The files of Swagger UI (swagger-ui-dist, Apache-2.0) that /docs serves, straight from the installed
 * package: nothing is copied into the repository and nothing is fetched from a CDN. Only the files named
 * here are served (no path from the request reaches the file system). The licence files are served beside
 * the bundle, which names its licence file in its first line.
 */
const FILES: Record<string, string> = {
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
  'swagger-ui.css': 'text/css; charset=utf-8',
  'index.css': 'text/css; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'swagger-ui-bundle.js.LICENSE.txt': 'text/plain; charset=utf-8',
  'swagger-ui-standalone-preset.js.LICENSE.txt': 'text/plain; charset=utf-8',
  LICENSE: 'text/plain; charset=utf-8',
  NOTICE: 'text/plain; charset=utf-8',
};

export interface ViewerAsset {
  type: string;
  body: Buffer;
  /** The body gzipped once (the bundle is 1.5 MB, about 450 KB gzipped); null when it does not shrink. */
  gzipped: Buffer | null;
  /** The package's version: the asset never changes while the gateway runs. */
  etag: string;
}

/** The folder of the installed swagger-ui-dist, found the way Node finds the package. */
export function viewerPackageDir(): string {
  return path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
}

/** Reads the served files on first use (not at start: a gateway nobody reads the docs of pays nothing). */
export class ViewerAssets {
  readonly #dir: string;
  readonly #loaded = new Map<string, ViewerAsset>();
  readonly version: string;

  constructor(dir = viewerPackageDir()) {
    this.#dir = dir;
    this.version = (JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version: string }).version;
  }

  /** The asset named `name`, or undefined when it is not one /docs serves. */
  get(name: string): ViewerAsset | undefined {
    if (!Object.hasOwn(FILES, name)) return undefined;
    let asset = this.#loaded.get(name);
    if (!asset) {
      const body = readFileSync(path.join(this.#dir, name));
      const type = FILES[name]!;
      const compressed = type.startsWith('image/') ? null : gzipSync(body);
      asset = { type, body, gzipped: compressed && compressed.length < body.length ? compressed : null, etag: `"swagger-ui-dist-${this.version}-${name}"` };
      this.#loaded.set(name, asset);
    }
    return asset;
  }
}

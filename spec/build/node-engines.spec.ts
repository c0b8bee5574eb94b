import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { PACKAGE_ROOT } from '../../engine/platform/package-root.ts';

const read = (file: string) => JSON.parse(readFileSync(path.join(PACKAGE_ROOT, file), 'utf8'));

/**
 * Packages whose engines ask for a newer Node than 20.19 (or 22.12), admitted by name because none of
 * their releases asks for less and nothing the gateway serves loads them: each is run on Node 20 by
 * the specs named (CI runs Node 20), so `npm ci` on Node 20 warns EBADENGINE for them and works.
 * A package not listed here that asks for more fails this spec.
 */
const ADMITTED: Record<string, string> = {
  // The MCP Inspector, a dev tool: spec/mcp/endpoint/inspector.spec.ts runs its CLI as a real client of /mcp.
  '@modelcontextprotocol/inspector': 'a dev tool (spec/mcp/endpoint/inspector.spec.ts)',
  commander: "the MCP Inspector's",
  undici: "the MCP Inspector's own copy (the gateway's undici is 7.x)",
  '@napi-rs/wasm-runtime': "the MCP Inspector's bundler's (vite, rolldown)",
  '@rolldown/binding-wasm32-wasi': "the MCP Inspector's bundler's (vite, rolldown)",
  // Swagger 2.0 and OpenAPI 3.0 upgraded to 3.1 by npm run import (an authoring tool; spec/authoring/import/ runs it on Node 20).
  '@scalar/openapi-upgrader': 'npm run import (spec/authoring/import/)',
  '@scalar/openapi-types': "@scalar/openapi-upgrader's",
  '@scalar/helpers': "@scalar/openapi-upgrader's",
};

/**
 * `npm ci` on every Node the project says it supports installs without an EBADENGINE warning: the oldest
 * release of each line package.json's engines admits (20.19.0, 22.12.0, 24.0.0) satisfies every locked
 * package's own engines.node, dev dependencies included (CI and a contributor install those too).
 */
describe('every locked package supports every Node the project names', () => {
  const supported = (read('package.json').engines.node as string).split('||').map((range) => semver.minVersion(range.trim())!.version);

  it('package.json names Node 20.19, 22.12 and 24 (the README says the same)', () => {
    expect(supported).to.deep.equal(['20.19.0', '22.12.0', '24.0.0']);
    const readme = readFileSync(path.join(PACKAGE_ROOT, 'README.md'), 'utf8');
    expect(readme).to.match(/Node\.js 22 \(22\.12 or newer\) or 24/).and.to.match(/20\.19 or newer still works/);
  });

  it('no locked package asks for a newer Node than those', () => {
    const packages = read('package-lock.json').packages as Record<string, { version?: string; engines?: { node?: string } | string[] }>;
    const refusing: string[] = [];
    for (const [where, entry] of Object.entries(packages)) {
      const wanted = entry.engines && !Array.isArray(entry.engines) ? entry.engines.node : undefined;
      if (!where || !wanted || Object.hasOwn(ADMITTED, where.replace(/^.*node_modules\//, ''))) continue;
      for (const node of supported) {
        if (!semver.satisfies(node, wanted)) refusing.push(`${where.replace(/^.*node_modules\//, '')}@${entry.version} wants node ${wanted}, not ${node}`);
      }
    }
    expect(refusing).to.deep.equal([]);
  });
});

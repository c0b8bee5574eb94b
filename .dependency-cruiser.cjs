/**
 * The layers of engine/ (docs/architecture.md), checked by `npm run check:layers` in CI.
 * Imports run one way, down this list; a file never imports a layer above its own:
 *
 *   composition root   engine/main.ts, engine/gateway.ts, engine/config/
 *   surfaces           engine/http/, engine/admin/, engine/authoring/, engine/mcp/   (never each other)
 *   core               engine/core/      the declarative engine, no HTTP server
 *   tenancy            engine/tenancy/   tenants' records and rules, no HTTP
 *   platform           engine/platform/  knows no app and no route
 *
 * Type-only imports count (tsPreCompilationDeps): a type is as much a dependency as a value.
 */
const ROOT = '^engine/(config/|main\\.ts$|gateway\\.ts$)';
const SURFACES = '^engine/(http|admin|authoring|mcp)/';

module.exports = {
  forbidden: [
    {
      name: 'platform-imports-upward',
      comment: 'engine/platform/ knows no app and no route: it may not import tenancy, core, a surface or the composition root. Move the shared piece down, or take it as a parameter.',
      severity: 'error',
      from: { path: '^engine/platform/' },
      to: { path: [`^engine/(tenancy|core)/`, SURFACES, ROOT] },
    },
    {
      name: 'tenancy-imports-upward',
      comment: 'engine/tenancy/ holds records and rules of tenants without HTTP: it may import only engine/platform/.',
      severity: 'error',
      from: { path: '^engine/tenancy/' },
      to: { path: ['^engine/core/', SURFACES, ROOT] },
    },
    {
      name: 'core-imports-upward',
      comment: 'engine/core/ is the declarative engine without an HTTP server: it may import engine/tenancy/ and engine/platform/ only. What it needs from above comes in as a narrow interface (see core/run/run-services.ts).',
      severity: 'error',
      from: { path: '^engine/core/' },
      to: { path: [SURFACES, ROOT] },
    },
    {
      name: 'surface-imports-another-surface',
      comment: 'A surface (http, admin, authoring, mcp) uses the layers below it, never another surface: move what two surfaces share down into core, tenancy or platform.',
      severity: 'error',
      from: { path: '^engine/(http|admin|authoring|mcp)/' },
      to: { path: SURFACES, pathNot: '^engine/$1/' },
    },
    {
      name: 'surface-imports-root',
      comment: 'The composition root (main.ts, gateway.ts, config/) wires the surfaces; a surface takes what it needs as parameters, never from the root.',
      severity: 'error',
      from: { path: SURFACES },
      to: { path: ROOT },
    },
    {
      name: 'koa-outside-http',
      comment: 'Koa and @koa/router belong to the HTTP surface (engine/http/) alone.',
      severity: 'error',
      from: { path: '^engine/', pathNot: '^engine/http/' },
      to: { path: 'node_modules/(koa|@koa/router|@types/koa|@types/koa__router)/' },
    },
    {
      name: 'no-circular',
      comment: 'No import circle between files, type imports included: cut it by moving the shared piece into a file of its own.',
      severity: 'error',
      from: { path: '^engine/' },
      to: { circular: true },
    },
  ],
  options: {
    // @swc/core parses TypeScript (TypeScript 7 has no parser API dependency-cruiser can use).
    parser: 'swc',
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
  },
};

/**
 * Run as its own process by tracing.spec.ts: starts the gateway with the
 * environment it was given, serves one request, stops, and prints which
 * OpenTelemetry packages were loaded (they are CommonJS, so Node's module
 * cache lists them however they were imported).
 */
import { createRequire } from 'node:module';
import { loadConfig } from '../../../engine/config/config.ts';
import { startGateway } from '../../../engine/gateway.ts';
import { createLogger } from '../../../engine/platform/log/logger.ts';

const gateway = await startGateway(loadConfig({ ...process.env, PORT: '0', HOST: '127.0.0.1' }), createLogger('silent'));
await (await fetch(`http://127.0.0.1:${gateway.port}/health`)).text();
await gateway.stop();
const loaded = new Set<string>();
for (const file of Object.keys(createRequire(import.meta.url).cache)) {
  const match = /node_modules\/(@opentelemetry\/[^/]+)\//.exec(file);
  if (match) loaded.add(match[1]!);
}
process.stdout.write(`${JSON.stringify([...loaded].sort())}\n`);

import { loadConfig } from '../../engine/config/config.ts';
import type { Dispatcher } from 'undici';
import { startGateway, type RunningGateway } from '../../engine/gateway.ts';
import type { Store } from '../../engine/platform/store/index.ts';
import { createConfiguredHttpClient } from '../../engine/platform/outbound/index.ts';
import { captureLogs } from './log-capture.ts';
import { expectDocumentedIfDescribed } from './openapi.ts';
import { tempDir } from './temp-dir.ts';

export const TEST_API_KEY = 'test-key-0123456789abcdefghij';

export interface TestGateway {
  url: string;
  apiKey: string;
  gateway: RunningGateway;
  logs: () => string;
  dataDir: string;
  /** Stops the gateway and removes its data unless keepData. */
  stop(options?: { keepData?: boolean }): Promise<void>;
}

/** The real gateway in this process: embedded store in a temp DATA_DIR, port 0 on 127.0.0.1, logs captured. */
export async function startTestGateway(env: Record<string, string> = {}, testing: { dispatcher?: Dispatcher; store?: (store: Store) => Store } = {}): Promise<TestGateway> {
  const { dir, cleanup } = env.DATA_DIR ? { dir: env.DATA_DIR, cleanup: async () => {} } : await tempDir();
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dir, BOOTSTRAP_API_KEY: TEST_API_KEY, LOG_LEVEL: 'info', ...pgliteTemplate(), ...env });
  const capture = captureLogs();
  const gateway = await startGateway(config, capture.logger, {
    ...(testing.dispatcher ? { http: createConfiguredHttpClient(config, { dispatcher: testing.dispatcher }) } : {}),
    ...(testing.store ? { store: testing.store } : {}),
  });
  return {
    url: `http://127.0.0.1:${gateway.port}`,
    apiKey: config.bootstrapApiKey ?? TEST_API_KEY,
    gateway,
    logs: capture.text,
    dataDir: dir,
    async stop(options = {}) {
      await gateway.stop();
      if (!options.keepData) await cleanup();
    },
  };
}

/** The embedded database every started gateway copies instead of creating one (spec/support/pglite-template.ts), when the run made it. */
export function pgliteTemplate(): Record<string, string> {
  return process.env.PGLITE_TEMPLATE_DIR ? { PGLITE_TEMPLATE_DIR: process.env.PGLITE_TEMPLATE_DIR } : {};
}

/** fetch with the API key and JSON, answering status, headers and parsed body; an answer to an operation the OpenAPI documents describe must match them (status and body), or the spec fails. */
export async function call(
  gw: Pick<TestGateway, 'url' | 'apiKey'>,
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string>; auth?: string | null } = {},
): Promise<{ status: number; headers: Headers; body: any }> {
  const headers: Record<string, string> = { ...options.headers };
  const auth = options.auth === undefined ? gw.apiKey : options.auth;
  if (auth !== null) headers.Authorization = `Bearer ${auth}`;
  let body: string | undefined;
  if (options.body !== undefined) {
    headers['Content-Type'] ??= 'application/json';
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  }
  const response = await fetch(gw.url + path, { method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON: the raw text is the body */
  }
  const answer = { status: response.status, headers: response.headers, body: parsed };
  // Every answer the suite sees to a documented operation is held to the OpenAPI documents, whatever its status.
  expectDocumentedIfDescribed(method, path, answer);
  return answer;
}

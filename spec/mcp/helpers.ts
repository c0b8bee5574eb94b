import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { call, startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { ROOT } from '../helpers/process.ts';
import { definitionsFor, Upstream } from '../helpers/upstream.ts';

export type Era = 'modern' | 'legacy';

/** The SDK's own client over HTTP to /mcp, with these headers on every request; `modern` pins the 2026-07-28 revision, `legacy` speaks the 2025 one. */
export async function mcpClient(url: string, headers: Record<string, string>, era: Era = 'modern'): Promise<Client> {
  const options = era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {};
  const client = new Client({ name: 'gateway-spec', version: '1.0.0' }, options as never);
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers } }));
  return client;
}

/** tools/list as an agent sees it, past any cache the client keeps. */
export async function listTools(client: Client) {
  return (await client.listTools(undefined, { cacheMode: 'bypass' } as never)).tools;
}

/** A tool result's text, its parts joined by new lines. */
export const resultText = (result: any): string => result.content.map((c: any) => c.text).join('\n');

/**
 * A gateway serving spec/fixtures/mcp against a local upstream, with one connection to the `store` app (start in
 * before, stop in after): what the /mcp specs post raw JSON-RPC messages to, or call through the SDK's client.
 * `env` adds to the gateway's environment (MCP_RESULT_MAX_CHARS, say).
 */
export class McpStore {
  readonly upstream = new Upstream();
  gw!: TestGateway;
  connectionId = '';
  private readonly clients: Client[] = [];
  private cleanup: () => Promise<void> = async () => {};

  constructor(private readonly env: Record<string, string> = {}) {}

  async start(): Promise<void> {
    await this.upstream.start();
    const defs = await definitionsFor(path.join(ROOT, 'spec/fixtures/mcp'), this.upstream.url);
    this.cleanup = defs.cleanup;
    this.gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32', ...this.env });
    this.connectionId = (await call(this.gw, 'POST', '/v2/connections', { body: { appSlug: 'store', name: 'Main store', credentials: { apiKey: 'main-key' } } })).body.data.id;
  }

  /** The SDK's client with the API key and the connection (closed by stop). */
  async client(era: Era = 'modern'): Promise<Client> {
    const client = await mcpClient(this.gw.url, { Authorization: `Bearer ${this.gw.apiKey}`, 'Connection-Id': this.connectionId }, era);
    this.clients.push(client);
    return client;
  }

  async stop(): Promise<void> {
    await Promise.all(this.clients.map((client) => client.close().catch(() => undefined)));
    await this.gw?.stop();
    await this.upstream.stop();
    await this.cleanup();
  }

  /**
   * The JSON-RPC answer to one POST with the API key and the connection, as the 2025 revisions' clients send it
   * (`headers` adds to or replaces them): refused before the SDK, JSON; answered by it, one server-sent event.
   */
  async post(body: object, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
    const response = await fetch(`${this.gw.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', Authorization: `Bearer ${this.gw.apiKey}`, 'Connection-Id': this.connectionId, ...headers },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: JSON.parse(text.startsWith('event:') ? text.split('\n').find((line) => line.startsWith('data: '))!.slice(6) : text) };
  }
}

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

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

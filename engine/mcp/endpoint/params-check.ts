/**
 * Params the SDK would refuse as an internal error for the methods whose params it checks itself (-32603,
 * its validator's issues dumped as the message), said here as what they are: invalid params (-32602), in
 * words, naming the param. A batch never gets here (mcp-endpoint.ts refuses it).
 */
export function paramsProblem(body: unknown): string | null {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return null;
  const { method, params } = body as { method?: unknown; params?: unknown };
  if (typeof method !== 'string') return null;
  if (params !== undefined && (params === null || typeof params !== 'object' || Array.isArray(params))) return `params of ${method}: must be an object (or left out)`;
  const given = (params ?? {}) as Record<string, unknown>;
  if (method === 'tools/list' && given.cursor !== undefined && typeof given.cursor !== 'string') {
    return 'params.cursor: must be a string, the nextCursor a tools/list answer gave (leave it out for the first page)';
  }
  if (method === 'tools/call') {
    if (typeof given.name !== 'string') return 'params.name: must be a string, the name of a tool tools/list gave';
    const args = given.arguments;
    if (args !== undefined && (args === null || typeof args !== 'object' || Array.isArray(args))) return "params.arguments: must be an object of the tool's arguments (or left out)";
  }
  if (method === 'initialize') {
    const missing = INITIALIZE_PARAMS.filter((name) => given[name] === undefined);
    if (missing.length) return `params of initialize: ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} required`;
  }
  return null;
}

const INITIALIZE_PARAMS = ['protocolVersion', 'capabilities', 'clientInfo'] as const;

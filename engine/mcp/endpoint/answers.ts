/** The JSON-RPC id of a request body, when it has one (answers to it carry it back); null otherwise. */
export function requestIdOf(body: unknown): string | number | null {
  const id = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as { id?: unknown }).id : undefined;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

/** An HTTP answer whose body is a JSON-RPC error (the transport's refusals: authentication, the Origin, the Connection-Id header). */
export function jsonRpcError(status: number, code: number, message: string, id: string | number | null, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } }), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

/** What a request without a valid bearer token is told; the same whatever was wrong with it. */
export const BEARER_REQUIRED =
  'a valid bearer token is required: send Authorization: Bearer <API_KEY> with a Connection-Id header naming the connections, or Authorization: Bearer <END_USER_TOKEN> from GET /v1/users/{userId}/token';

/**
 * 401 with the challenge the MCP authorization specification asks for
 * (RFC 6750, RFC 9728): the Bearer scheme and where the protected resource
 * metadata is; `error="invalid_token"` only when a token was sent (a request
 * without one is told no error code, as RFC 6750 section 3.1 says).
 */
export function unauthorized(resourceMetadataUrl: string, tokenSent: boolean, id: string | number | null): Response {
  const challenge = [`Bearer realm="mcp"`, `resource_metadata="${resourceMetadataUrl}"`];
  if (tokenSent) challenge.push('error="invalid_token"', 'error_description="the token is not an active API key or a valid end-user token"');
  return jsonRpcError(401, -32000, BEARER_REQUIRED, id, { 'www-authenticate': challenge.join(', ') });
}

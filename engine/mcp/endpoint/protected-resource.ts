/** Where the protected resource metadata of the endpoint at `path` is (RFC 9728 section 3: the well-known prefix before the path). */
export function resourceMetadataPath(path: string): string {
  return `/.well-known/oauth-protected-resource${path}`;
}

/**
 * The RFC 9728 protected resource metadata of /mcp: the resource, that a
 * bearer token goes in the Authorization header, and (by leaving
 * authorization_servers out) no authorization server: the gateway's tokens (an API key, an end-user token) are not
 * issued by an OAuth flow an agent could run; they are configured in the
 * agent (docs/mcp.md).
 */
export function protectedResourceMetadata(resource: string): Record<string, unknown> {
  return {
    resource,
    resource_name: 'Integration gateway MCP endpoint',
    bearer_methods_supported: ['header'],
  };
}

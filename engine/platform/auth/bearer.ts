/**
 * The token of an `Authorization: Bearer <token>` header value, or null: the
 * one reading of the header every surface shares (the REST guards, /mcp).
 */
export function bearerTokenOf(authorization: string | undefined): string | null {
  const match = /^Bearer +(\S+)\s*$/i.exec(authorization ?? '');
  return match ? match[1]! : null;
}

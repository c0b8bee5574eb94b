import type { AppContext } from '../server/context.ts';

/** The token of an `Authorization: Bearer <token>` header, or null. */
export function bearerToken(ctx: AppContext): string | null {
  const match = /^Bearer +(\S+)\s*$/i.exec(ctx.req.headers.authorization ?? '');
  return match ? match[1]! : null;
}

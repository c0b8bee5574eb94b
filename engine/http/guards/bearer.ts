import { bearerTokenOf } from '../../platform/auth/bearer.ts';
import type { AppContext } from '../server/context.ts';

/** The token of an `Authorization: Bearer <token>` header, or null. */
export function bearerToken(ctx: AppContext): string | null {
  return bearerTokenOf(ctx.req.headers.authorization);
}

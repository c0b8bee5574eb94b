import type { ParameterizedContext } from 'koa';
import type Router from '@koa/router';
import type { RunFacts } from '../../core/run/run-facts.ts';

/** Who made the request, once an authentication middleware has decided. */
export interface ApiKeyPrincipal {
  kind: 'apiKey';
  companyId: string;
  userId: string;
  apiKeyId: string;
}

/** The end user an end-user token (JWT) was issued to, once requireEndUserToken admitted it. */
export interface EndUserPrincipal {
  kind: 'endUser';
  companyId: string;
  endUserId: string;
  isTestUser: boolean;
  /** The token's `jti`. */
  tokenId: string;
  /** The token's `exp`: when the session ends, in seconds since the epoch. */
  expiresAt: number;
}

export interface AppState {
  requestId: string;
  principal?: ApiKeyPrincipal;
  /** Set instead of `principal` on endpoints an end user's session calls. */
  endUser?: EndUserPrincipal;
  /** The parsed JSON body of a POST/PUT/PATCH; undefined when the request had none. */
  body?: unknown;
  /** The Origin of a cross-site browser request, once the end-user token's company was found to allow it (CORS). */
  browserOrigin?: string;
  /** Set by the run endpoints: the run's facts, for the request log line and the metrics. */
  run?: RunFacts;
}

export type AppContext = ParameterizedContext<AppState>;
export type AppRouter = Router<AppState>;

import type { ParameterizedContext } from 'koa';
import type Router from '@koa/router';

/** Who made the request, once an authentication middleware has decided. */
export interface ApiKeyPrincipal {
  kind: 'apiKey';
  companyId: string;
  userId: string;
  apiKeyId: string;
}

export interface AppState {
  requestId: string;
  principal?: ApiKeyPrincipal;
  /** The parsed JSON body of a POST/PUT/PATCH; undefined when the request had none. */
  body?: unknown;
}

export type AppContext = ParameterizedContext<AppState>;
export type AppRouter = Router<AppState>;

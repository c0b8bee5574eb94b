import Router from '@koa/router';
import { requireApiKeyOrEndUserToken } from '../guards/require-api-key-or-end-user.ts';
import { requireEnabledApp } from '../end-user-connections/apps.ts';
import { validationError } from '../../platform/errors/index.ts';
import { METADATA_MAX_BYTES, parseJsonParameter } from '../../platform/validation/json-limits.ts';
import type { AppState } from '../server/context.ts';
import type { Services } from '../services.ts';
import { startAuthorization } from './authorize.ts';
import { requireRoomForConnection } from '../../tenancy/end-users/connection-room.ts';
import { gatewayOrigins } from '../pages/connect-page/own-origin.ts';
import { completeAuthorization, outcomeLocation } from './callback.ts';
import { GatewayError } from '../../platform/errors/index.ts';
import { completeChoice, describeChoice, type Chooser } from './choices.ts';
import { STATE_LIFETIME_SECONDS } from './oauth-state.ts';
import { chooseBody, type ChooseBody } from './schemas.ts';
import { requireBody } from '../server/require-body.ts';
import { compileValidator } from '../../platform/validation/ajv.ts';

const validateChoose = compileValidator<ChooseBody>(chooseBody, 'body');

/**
 * The OAuth 2.0 connect flow. Your backend (API key) or an end user's
 * embedded session (end-user token) asks for an authorization URL and
 * sends the browser there; the provider sends it back to the callback, which stores the connection and redirects to your return URL
 * with `connectionId` (or `error` and `error_description`). One an end user's session started comes back with `choiceId`
 * instead: that session confirms it (POST /v2/connect/choices/{choiceId}), and only then is the connection stored.
 */
export function connectRoutes(services: Services): Router<AppState> {
  const router = new Router<AppState>();

  router.get('/v2/connect/:appSlug/authorize', requireApiKeyOrEndUserToken(services), async (ctx) => {
    const query = ctx.query;
    const one = (name: string) => (typeof query[name] === 'string' ? (query[name] as string) : undefined);
    const returnUrl = one('returnUrl');
    if (!returnUrl) throw validationError([{ field: 'returnUrl', rule: 'required', message: 'is required: where the browser goes when the connection is made' }]);
    // An end user's session connects for that end user only; a backend names the end user, if any.
    const endUser = ctx.state.endUser;
    if (endUser && one('endUserId') !== undefined && one('endUserId') !== endUser.endUserId) {
      throw validationError([{ field: 'endUserId', rule: 'token', message: "must be left out (or be the token's own end user) when calling with an end-user token" }]);
    }
    const confirm = one('confirm');
    if (confirm !== undefined && confirm !== 'true' && confirm !== 'false') {
      throw validationError([{ field: 'confirm', rule: 'boolean', message: 'must be true or false' }]);
    }
    // An end user connects only the apps the company enabled for end users.
    if (endUser) await requireEnabledApp(services, endUser.companyId, ctx.params.appSlug!);
    if (endUser) await requireRoomForConnection(services.store, endUser.companyId, endUser.endUserId, services.config.endUserTokens.maxConnections);
    ctx.body = {
      success: true,
      data: await startAuthorization(services, {
        companyId: endUser ? endUser.companyId : ctx.state.principal!.companyId,
        appSlug: ctx.params.appSlug!,
        authId: one('authId'),
        endUserId: endUser ? endUser.endUserId : (one('endUserId') ?? null),
        returnUrl,
        metadata: parseMetadata(one('metadata')),
        ownOrigins: gatewayOrigins(services.config, `${ctx.protocol}://${ctx.host}`, ctx.req.socket.localPort),
        // Always for an end user's session; a backend asks for it to bind the sign-in to a browser of its own.
        confirm: Boolean(endUser) || confirm === 'true',
      }),
    };
  });

  // A grant that reaches several accounts (Xero organisations): the Connect page, or your own page, shows them and sends
  // the choice; a sign-in an end user's session started, that session confirms. A sign-in may end after the session
  // that started it (a slow consent page): its token is still taken here for as long as an authorization may take.
  const chooser = requireApiKeyOrEndUserToken(services, STATE_LIFETIME_SECONDS);
  router.get('/v2/connect/choices/:choiceId', chooser, async (ctx) => {
    ctx.body = { success: true, data: await describeChoice(services, chooserOf(ctx.state), ctx.params.choiceId!) };
  });

  router.post('/v2/connect/choices/:choiceId', chooser, async (ctx) => {
    const body = validateChoose(requireBody(ctx));
    ctx.body = { success: true, data: await completeChoice(services, chooserOf(ctx.state), ctx.params.choiceId!, body.optionId) };
  });

  router.get('/v2/connect/callback', async (ctx) => {
    let outcome;
    try {
      outcome = await completeAuthorization(services, ctx.query, gatewayOrigins(services.config, `${ctx.protocol}://${ctx.host}`, ctx.req.socket.localPort));
    } catch (error) {
      // A state with nowhere to go back to (forged, or missing: a provider that drops it on a refusal): a browser, an end
      // user in the sign-in popup, is sent to the gateway's own return page, which the Connect page words; an API client gets the 400.
      if (error instanceof GatewayError && error.code === 'OAUTH_STATE_INVALID' && ctx.accepts('json', 'html') === 'html') {
        ctx.redirect(`/connect/oauth-return?${new URLSearchParams({ error: 'oauth_state_invalid', error_description: error.message })}`);
        return;
      }
      throw error;
    }
    ctx.redirect(outcomeLocation(outcome));
  });

  return router;
}

/** The company of the API key, or the end user of the token (who sees only their own choices). */
function chooserOf(state: AppState): Chooser {
  return state.endUser ? { companyId: state.endUser.companyId, endUserId: state.endUser.endUserId } : { companyId: state.principal!.companyId, endUserId: null };
}

export function parseMetadata(raw: string | undefined): Record<string, unknown> {
  if (raw === undefined) return {};
  return parseJsonParameter(raw, 'metadata', METADATA_MAX_BYTES, 'of host variables, e.g. {"subdomain":"acme"}');
}

import { expect } from 'chai';
import type { AuthEntry } from '../../../engine/core/definitions/index.ts';
import type { AuthDefinition } from '../../../engine/core/definitions/generated/definition-types.ts';
import { applyAuth } from '../../../engine/core/auth/apply-auth.ts';

const oauth = (extra: object): AuthEntry =>
  ({
    id: 'oauth2',
    type: 'OAuth2AuthorizationCode',
    definition: { type: 'OAuth2AuthorizationCode', id: 'oauth2', authorizeUrl: 'https://shop.example.com/authorize', tokenUrl: 'https://shop.example.com/token', ...extra } as AuthDefinition,
    arguments: [],
    exchangeResponse: undefined,
    postAuthorization: undefined,
    file: 'shop/versions/1/auths/oauth2.yaml',
  }) as AuthEntry;

describe('OAuth 2.0 auths: the header that carries the access token', () => {
  it('is Authorization: Bearer <token> by default', () => {
    const applied = applyAuth(oauth({}), { arguments: {}, accessToken: 'at-1' }, {}, undefined);
    expect(applied.headers).to.deep.equal({ authorization: 'Bearer at-1' });
  });

  it('is the auth\'s header and prefix when it names them (Shopify: X-Shopify-Access-Token, no prefix)', () => {
    const applied = applyAuth(oauth({ header: 'X-Shopify-Access-Token', prefix: '' }), { arguments: {}, accessToken: 'shpua_1' }, {}, 'shpua_1');
    expect(applied.headers).to.deep.equal({ 'x-shopify-access-token': 'shpua_1' });
    // A redirect to another origin drops it, like any credential header.
    expect(applied.redirect).to.deep.include({ crossOrigin: 'strip', credentialHeaders: ['x-shopify-access-token'] });
  });

  it('is the same for a client-credentials auth', () => {
    const entry = { ...oauth({ type: 'OAuth2ClientCredentials', header: 'X-Api-Token', prefix: 'Token ' }), type: 'OAuth2ClientCredentials' } as AuthEntry;
    expect(applyAuth(entry, { arguments: {}, accessToken: 'cc-1' }, {}, undefined).headers).to.deep.equal({ 'x-api-token': 'Token cc-1' });
  });
});

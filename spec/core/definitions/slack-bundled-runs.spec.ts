import { expect } from 'chai';
import path from 'node:path';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { ROOT } from '../../helpers/process.ts';
import { Upstream } from '../../helpers/upstream.ts';

const BUNDLED = path.join(ROOT, 'definitions');

/**
 * The bundled Slack app, run through a gateway against a local stand-in of
 * the Web API (APP_BASE_URLS): what the offline cases cannot show, the
 * connection's state after a run and the options a channel lookup offers.
 */
describe('bundled Slack app: a bot token Slack says is gone, and the channel lookups', function () {
  this.timeout(30_000);
  const upstream = new Upstream();
  let gw: TestGateway;
  const connect = async () =>
    (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'slack', credentials: { accessToken: 'xoxb-test' } } })).body.data.id as string;

  before(async () => {
    await upstream.start();
    gw = await startTestGateway({ DEFINITIONS_DIR: BUNDLED, APP_BASE_URLS: JSON.stringify({ slack: `${upstream.url}/api` }), EGRESS_ALLOW: '127.0.0.1/32' });
    await call(gw, 'PUT', '/v2/apps/slack/configuration', { body: { clientId: 'slack-client', clientSecret: 'slack-secret' } });
  });
  after(async () => {
    await gw.stop();
    await upstream.stop();
  });
  afterEach(() => upstream.reset());

  for (const error of ['account_inactive', 'token_revoked', 'invalid_auth', 'not_authed']) {
    it(`${error}: a bot token without a refresh token marks the connection needs_reauthorization, calling no token endpoint`, async () => {
      upstream.on('POST /api/chat.postMessage', () => ({ body: { ok: false, error } }));
      const connectionId = await connect();
      const { body } = await call(gw, 'POST', '/v2/universal/apps/slack/actions/post-message/run', {
        body: { connectionId, arguments: { channel: 'C123ABC456', text: 'Hello world' } },
      });
      expect(body.success).to.equal(false);
      expect(body.error.code).to.equal('AUTH_REFRESH_FAILED');
      expect(body.error.message).to.include('it needs to be authorized again');
      expect(upstream.calls('POST /api/chat.postMessage')).to.have.length(1);
      expect(upstream.calls('POST /api/oauth.v2.access')).to.have.length(0);
      const connection = await call(gw, 'GET', `/v2/connections/${connectionId}`);
      expect(connection.body.data.status).to.equal('needs_reauthorization');
    });
  }

  it('missing_scope is a failure of the run; the connection stays active', async () => {
    upstream.on('POST /api/chat.postMessage', () => ({ body: { ok: false, error: 'missing_scope', needed: 'chat:write', provided: 'channels:read' } }));
    const connectionId = await connect();
    const { body } = await call(gw, 'POST', '/v2/universal/apps/slack/actions/post-message/run', {
      body: { connectionId, arguments: { channel: 'C123ABC456', text: 'Hello world' } },
    });
    expect(body).to.deep.include({ success: false, data: [] });
    expect(body.meta.appError).to.deep.include({ code: 'missing_scope' });
    expect((await call(gw, 'GET', `/v2/connections/${connectionId}`)).body.data.status).to.equal('active');
  });

  for (const action of ['post-message', 'delete-message']) {
    it(`${action}: the channel options come from every conversation type the bot sees, archived left out, a DM labelled by its user`, async () => {
      upstream.on('GET /api/conversations.list', () => ({
        body: {
          ok: true,
          channels: [
            { id: 'C012AB3CD', name: 'general', is_private: false },
            { id: 'G0AKFJBEU', name: 'mpdm-egon--glinda-1', is_mpim: true, is_private: true },
            { id: 'D0G9QPY56', is_im: true, user: 'U0G9QF9C6' },
          ],
          response_metadata: { next_cursor: '' },
        },
      }));
      const connectionId = await connect();
      const { status, body } = await call(gw, 'POST', `/v2/universal/apps/slack/actions/${action}/arguments/channel/options?version=published`, { body: { connectionId } });
      expect(status).to.equal(200);
      expect(body.data).to.deep.equal([
        { value: 'C012AB3CD', label: 'general' },
        { value: 'G0AKFJBEU', label: 'mpdm-egon--glinda-1' },
        { value: 'D0G9QPY56', label: 'U0G9QF9C6' },
      ]);
      const [sent] = upstream.calls('GET /api/conversations.list');
      expect(sent!.query.get('types')).to.equal('public_channel,private_channel,mpim,im');
      expect(sent!.query.get('exclude_archived')).to.equal('true');
    });
  }
});

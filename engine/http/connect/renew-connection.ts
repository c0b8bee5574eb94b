import { seal } from '../../platform/crypto/cipher.ts';
import type { ConnectionSecrets } from '../../tenancy/connections/connections.ts';
import { findConnection } from '../../tenancy/connections/connections.ts';
import { connectionView } from '../../tenancy/connections/view.ts';
import { GatewayError } from '../../platform/errors/index.ts';
import type { Services } from '../services.ts';
import type { ConnectionRecord } from '../../platform/store/index.ts';
import { publishEvent } from '../../tenancy/webhooks/publish.ts';
import { withEvents } from '../../tenancy/webhooks/with-events.ts';
import type { OAuthState } from './oauth-state.ts';

/**
 * A reconnect's callback: the connection the authorization named gets the new tokens in place (same id,
 * the installations that use it keep working) and becomes active; one that needed re-authorization fires
 * connection.reauthorized, as PATCH /v2/connections/{id} does. The connection must still be the one the
 * authorization was started for (same company, end user, app and auth), else NOT_FOUND: it was deleted
 * meanwhile, and the provider's tokens are dropped rather than stored somewhere else.
 */
export async function renewConnection(
  services: Services,
  state: Omit<OAuthState, 'confirm'> & { connectionId: string },
  renewed: { secrets: ConnectionSecrets; tokenExpiresAt: Date | null; kept: Record<string, unknown> },
): Promise<ConnectionRecord> {
  const current = await services.store.connections.findOne({ id: state.connectionId, companyId: state.companyId });
  if (!current || current.endUserId !== state.endUserId || current.appSlug !== state.appSlug || current.authId !== state.authId) {
    throw GatewayError.of('NOT_FOUND', `connection ${state.connectionId} does not exist`);
  }
  // The new credentials and their connection.reauthorized event are one transaction.
  return await withEvents(services, async () => {
    const changed = await services.store.connections.updateOne(
      { id: current.id, companyId: current.companyId, credentialsVersion: current.credentialsVersion },
      {
        $set: {
          credentials: seal(services.keyring, current.id, renewed.secrets),
          tokenExpiresAt: renewed.tokenExpiresAt,
          metadata: { ...current.metadata, ...renewed.kept },
          status: 'active',
          updatedOn: new Date(),
        },
        $inc: { credentialsVersion: 1 },
      },
    );
    if (!changed) throw GatewayError.of('CONFLICT', `connection ${current.id} changed while it was being reconnected; start again`);
    const updated = await findConnection(services, current.companyId, current.id);
    if (current.status === 'needs_reauthorization') {
      await publishEvent(services, current.companyId, { type: 'connection.reauthorized', data: connectionView(updated) });
    }
    return updated;
  });
}

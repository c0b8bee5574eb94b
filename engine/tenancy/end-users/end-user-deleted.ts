import type { TenancyServices } from '../tenancy-services.ts';
import { publishEvent } from '../webhooks/publish.ts';

export interface EndUserDeletedEvent {
  companyId: string;
  endUserId: string;
  connectionsDeleted: number;
  installationsDeleted: number;
}

/**
 * Announces that an end user is gone, once its deletion is complete (its
 * record, pending authorizations, installations and connections). The one
 * call site is deleteEndUser: it writes the audit log line and publishes the
 * `end_user.deleted` webhook event, ids and counts only, never the person's
 * name, email or metadata.
 */
export async function endUserDeleted(services: TenancyServices, event: EndUserDeletedEvent): Promise<void> {
  services.logger.info({ event: 'end_user.deleted', ...event }, 'end user deleted');
  const { companyId, ...data } = event;
  await publishEvent(services, companyId, { type: 'end_user.deleted', data });
}

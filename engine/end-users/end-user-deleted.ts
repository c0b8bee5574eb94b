import type { Services } from '../services.ts';

export interface EndUserDeletedEvent {
  companyId: string;
  endUserId: string;
  connectionsDeleted: number;
  installationsDeleted: number;
}

/**
 * Announces that an end user is gone, once its deletion is complete (its
 * record, pending authorizations, installations and connections). The one
 * call site is deleteEndUser; the "end user deleted" webhook event (issue 20
 * item 5) is published from here. Today it writes the audit log line: ids
 * and counts only, never the person's name, email or metadata.
 */
export function endUserDeleted(services: Pick<Services, 'logger'>, event: EndUserDeletedEvent): void {
  services.logger.info({ event: 'end_user.deleted', ...event }, 'end user deleted');
}

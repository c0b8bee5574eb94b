import { issueApiKey } from '../auth/api-keys.ts';
import type { Store } from '../store/index.ts';
import { addMember, createCompany } from './companies.ts';

export const BOOTSTRAP_OWNER = { name: 'Owner', email: 'owner@example.com' } as const;

export type BootstrapOutcome =
  | { kind: 'skipped' }
  | { kind: 'created'; companyId: string; userId: string; generatedKey: string | null };

/**
 * On an empty store, creates the "Default" company, its owner and one API
 * key: BOOTSTRAP_API_KEY when given, a generated key otherwise (returned so
 * the caller can show it once). A store that already has a company is left
 * alone, whatever BOOTSTRAP_API_KEY says.
 */
export async function bootstrap(store: Store, bootstrapApiKey: string | undefined): Promise<BootstrapOutcome> {
  if ((await store.companies.count({})) > 0) return { kind: 'skipped' };
  const company = await createCompany(store, { name: 'Default' });
  const owner = await addMember(store, company.id, { ...BOOTSTRAP_OWNER, role: 'owner' });
  const { key } = await issueApiKey(store, { companyId: company.id, userId: owner.userId }, 'bootstrap', bootstrapApiKey);
  return { kind: 'created', companyId: company.id, userId: owner.userId, generatedKey: bootstrapApiKey ? null : key };
}

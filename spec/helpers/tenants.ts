import { issueApiKey } from '../../engine/tenancy/api-keys/api-keys.ts';
import { addMember, createCompany } from '../../engine/tenancy/companies/companies.ts';
import type { Store } from '../../engine/platform/store/index.ts';

/** A second company with its own owner and API key, for tenant isolation tests. */
export async function otherTenant(store: Store, name = 'Other Co'): Promise<{ companyId: string; apiKey: string }> {
  const company = await createCompany(store, { name });
  const owner = await addMember(store, company.id, { name: 'Other Owner', email: `owner@${company.id}.test`, role: 'owner' });
  const { key } = await issueApiKey(store, { companyId: company.id, userId: owner.userId }, 'test');
  return { companyId: company.id, apiKey: key };
}

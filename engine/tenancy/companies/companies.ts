import { GatewayError } from '../../platform/errors/index.ts';
import { newId } from '../../platform/ids.ts';
import { DuplicateKeyError, type CompanyRecord, type MemberRecord, type MemberRole, type Store } from '../../platform/store/index.ts';

export interface NewCompany {
  name: string;
  description?: string | null;
  timezone?: string;
  plan?: string;
  isPersonal?: boolean;
  /** Internal: marks the bootstrap company until its owner's key is delivered. */
  bootstrapPending?: true;
}

export async function createCompany(store: Store, input: NewCompany): Promise<CompanyRecord> {
  const now = new Date();
  const company: CompanyRecord = {
    id: newId('cmp'),
    name: input.name,
    description: input.description ?? null,
    isPersonal: input.isPersonal ?? false,
    timezone: input.timezone ?? 'UTC',
    settings: {},
    isDeleted: false,
    createdOn: now,
    updatedOn: now,
    plan: input.plan ?? 'free',
    billingSubscriptionProductId: null,
    subscriptionIsLegacy: false,
    subscriptionUpdatedOn: null,
    memberCount: 0,
    ...(input.bootstrapPending ? { bootstrapPending: true as const } : {}),
  };
  return await store.companies.insert(company);
}

export interface NewMember {
  name: string;
  email: string;
  role?: MemberRole;
}

/**
 * Adds a person to a company. A person already known by email (in any
 * company) keeps their userId, so one API key owner can belong to several
 * companies.
 */
export async function addMember(store: Store, companyId: string, input: NewMember): Promise<MemberRecord> {
  const company = await store.companies.findOne({ id: companyId });
  if (!company) throw GatewayError.of('NOT_FOUND', `company ${companyId} does not exist`);
  const email = input.email.toLowerCase();
  const known = await store.members.findOne({ email });
  const member: MemberRecord = {
    id: newId('mem'),
    companyId,
    userId: known?.userId ?? newId('usr'),
    name: input.name,
    email,
    role: input.role ?? 'member',
    createdOn: new Date(),
  };
  try {
    await store.members.insert(member);
  } catch (error) {
    if (error instanceof DuplicateKeyError) {
      throw GatewayError.of('CONFLICT', `${email} is already a member of company ${companyId}`);
    }
    throw error;
  }
  await store.companies.updateOne({ id: companyId }, { $inc: { memberCount: 1 }, $set: { updatedOn: new Date() } });
  return member;
}

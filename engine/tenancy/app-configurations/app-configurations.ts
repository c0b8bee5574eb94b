import { open, seal } from '../../platform/crypto/cipher.ts';
import { GatewayError, validationError, type FieldProblem } from '../../platform/errors/index.ts';
import { createEgressPolicy } from '../../platform/egress/policy.ts';
import { newId } from '../../platform/ids.ts';
import type { TenancyServices } from '../tenancy-services.ts';
import { DuplicateKeyError, type AppConfigurationRecord } from '../../platform/store/index.ts';
import type { AppConfigurationSecrets, PutAppConfigurationBody } from './schemas.ts';

/**
 * A company's settings for one app: the OAuth client it registered with the
 * provider, and its credential-exchange endpoint. PUT replaces the plain
 * fields; a secret left out keeps the stored one (it is never shown, so a
 * caller could not send it back).
 */
export async function putAppConfiguration(services: TenancyServices, companyId: string, appSlug: string, body: PutAppConfigurationBody, raced = false): Promise<AppConfigurationRecord> {
  refuseUnusable(services, body);
  const configKey = `${companyId}:${appSlug}`;
  const existing = await services.store.appConfigurations.findOne({ configKey });
  const id = existing?.id ?? newId('cfg');
  const previous: AppConfigurationSecrets = existing ? open(services.keyring, id, existing.secrets) : {};
  const secrets: AppConfigurationSecrets = {
    ...(body.clientSecret ?? previous.clientSecret ? { clientSecret: body.clientSecret ?? previous.clientSecret } : {}),
    ...(body.exchangeSecret ?? previous.exchangeSecret ? { exchangeSecret: body.exchangeSecret ?? previous.exchangeSecret } : {}),
  };
  const now = new Date();
  const record: AppConfigurationRecord = {
    id,
    companyId,
    appSlug,
    configKey,
    clientId: body.clientId ?? null,
    redirectUri: body.redirectUri ?? null,
    exchangeUrl: body.exchangeUrl ?? null,
    secrets: seal(services.keyring, id, secrets),
    hasClientSecret: secrets.clientSecret !== undefined,
    hasExchangeSecret: secrets.exchangeSecret !== undefined,
    createdOn: existing?.createdOn ?? now,
    updatedOn: now,
  };
  if (existing) {
    const { id: _id, ...fields } = record;
    await services.store.appConfigurations.updateOne({ id }, { $set: fields });
    return record;
  }
  try {
    await services.store.appConfigurations.insert(record);
  } catch (error) {
    // Two first PUTs raced and the other inserted: this one, the later, is written over it (its secrets sealed under that record's id).
    if (!(error instanceof DuplicateKeyError) || raced) throw error;
    return await putAppConfiguration(services, companyId, appSlug, body, true);
  }
  return record;
}

export async function findAppConfiguration(services: Pick<TenancyServices, 'store'>, companyId: string, appSlug: string): Promise<AppConfigurationRecord | null> {
  return await services.store.appConfigurations.findOne({ configKey: `${companyId}:${appSlug}` });
}

export async function requireAppConfiguration(services: Pick<TenancyServices, 'store'>, companyId: string, appSlug: string): Promise<AppConfigurationRecord> {
  const found = await findAppConfiguration(services, companyId, appSlug);
  if (!found) {
    throw GatewayError.of('APP_NOT_CONFIGURED', `app "${appSlug}" is not configured for your company: PUT /v2/apps/${appSlug}/configuration first`);
  }
  return found;
}

export function appConfigurationView(record: AppConfigurationRecord) {
  return {
    appSlug: record.appSlug,
    clientId: record.clientId,
    hasClientSecret: record.hasClientSecret,
    redirectUri: record.redirectUri,
    exchangeUrl: record.exchangeUrl,
    hasExchangeSecret: record.hasExchangeSecret,
    createdOn: record.createdOn.toISOString(),
    updatedOn: record.updatedOn.toISOString(),
  };
}

/** Control characters: no provider issues a client id holding one. */
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * What could never work, refused when it is saved rather than on every run: an exchange URL whose host is an
 * address the egress policy refuses (the exchange would be 403 EGRESS_DENIED each time; a name is resolved, and
 * checked, on each exchange, as a DNS answer may change), and a client id with a control character.
 */
function refuseUnusable(services: TenancyServices, body: PutAppConfigurationBody): void {
  const problems: FieldProblem[] = [];
  if (body.clientId !== undefined && CONTROL.test(body.clientId)) problems.push({ field: 'clientId', rule: 'pattern', message: 'must not hold control characters (a line break, a tab, ...)' });
  if (body.exchangeUrl !== undefined) {
    const denied = createEgressPolicy(services.config.egressAllow).checkHost(new URL(body.exchangeUrl).hostname);
    if (denied) problems.push({ field: 'exchangeUrl', rule: 'egress', message: `refused by the egress policy: ${denied.message}` });
  }
  if (problems.length > 0) throw validationError(problems);
}

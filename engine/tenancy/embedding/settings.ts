import { validationError, type FieldProblem } from '../../platform/errors/index.ts';
import { newId } from '../../platform/ids.ts';
import type { TenancyServices } from '../tenancy-services.ts';
import { DuplicateKeyError, type EmbeddingSettingsRecord, type Store } from '../../platform/store/index.ts';
import { parseOrigin } from './origins.ts';
import type { PutEmbeddingBody } from './schemas.ts';

/** What a company that never set its embedding settings has: no origin, no app (nothing is open to browsers until it says so). */
export interface EmbeddingSettings {
  allowedOrigins: readonly string[];
  enabledApps: readonly string[];
  /** Whether end users may call their connections' apps through /v2/end-user/proxy (off until the company says so). */
  endUserProxy: boolean;
  theme?: EmbeddingTheme;
  updatedOn: Date | null;
}

export interface EmbeddingTheme {
  primaryColor: string | null;
  mode: 'light' | 'dark' | 'system';
  /** An https URL of the company's logo, shown on the Connect page (absent on records written before it existed). */
  logoUrl?: string | null;
}

export const DEFAULT_THEME: EmbeddingTheme = { primaryColor: null, mode: 'light', logoUrl: null };

/** The theme as the API shows it: every field, the default for any a record does not have. */
export const themeOf = (settings: { theme?: EmbeddingTheme }) => ({ ...DEFAULT_THEME, ...settings.theme, logoUrl: settings.theme?.logoUrl ?? null });

export async function embeddingSettings(store: Store, companyId: string): Promise<EmbeddingSettings> {
  const record = await store.embeddingSettings.findOne({ companyId });
  // Records written before endUserProxy existed have none: off.
  return record ? { ...record, endUserProxy: record.endUserProxy === true } : { allowedOrigins: [], enabledApps: [], endUserProxy: false, updatedOn: null };
}

/** Checks and replaces both lists; an origin is kept normalised, an app must be one the gateway has loaded. */
export async function putEmbeddingSettings(services: TenancyServices, companyId: string, body: PutEmbeddingBody): Promise<EmbeddingSettings> {
  const problems: FieldProblem[] = [];
  const origins: string[] = [];
  body.allowedOrigins.forEach((raw, i) => {
    const parsed = parseOrigin(raw, `allowedOrigins[${i}]`);
    if ('problem' in parsed) problems.push(parsed.problem);
    else if (!origins.includes(parsed.origin)) origins.push(parsed.origin);
  });
  const loaded = services.definitions.current().appsBySlug;
  body.enabledApps.forEach((slug, i) => {
    if (!loaded.has(slug)) problems.push({ field: `enabledApps[${i}]`, rule: 'exists', message: `no app with slug "${slug}" is loaded (GET /v2/universal/apps lists them)` });
  });
  const logo = body.theme?.logoUrl;
  if (typeof logo === 'string') {
    const problem = logoUrlProblem(logo);
    if (problem) problems.push({ field: 'theme.logoUrl', rule: 'https', message: problem });
  }
  if (problems.length) throw validationError(problems);

  const now = new Date();
  const theme: EmbeddingTheme = { primaryColor: body.theme?.primaryColor?.toLowerCase() ?? null, mode: body.theme?.mode ?? 'light', logoUrl: logo ? new URL(logo).href : null };
  const fields = { allowedOrigins: origins, enabledApps: [...body.enabledApps], endUserProxy: body.endUserProxy === true, theme, updatedOn: now };
  if (await services.store.embeddingSettings.updateOne({ companyId }, { $set: fields })) return fields;
  const record: EmbeddingSettingsRecord = { id: newId('emb'), companyId, ...fields, createdOn: now };
  try {
    await services.store.embeddingSettings.insert(record);
  } catch (error) {
    // Two first PUTs raced: the other inserted; this one, the later, wins.
    if (!(error instanceof DuplicateKeyError)) throw error;
    await services.store.embeddingSettings.updateOne({ companyId }, { $set: fields });
  }
  return fields;
}

/**
 * Why a logo URL cannot be shown, or null: it must be an absolute https URL (the page is https in production
 * and its CSP takes images over https only), with a host and without a user name or password.
 */
export function logoUrlProblem(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `must be an absolute https URL such as https://www.example.com/logo.svg (got ${JSON.stringify(raw.slice(0, 100))})`;
  }
  if (url.protocol !== 'https:') return `must be an https URL (got ${url.protocol}): the Connect page shows images over https only`;
  if (url.username || url.password) return 'must not carry a user name or password: the URL is sent to every end user\'s browser';
  return null;
}

export function embeddingSettingsView(settings: EmbeddingSettings) {
  return {
    allowedOrigins: [...settings.allowedOrigins],
    enabledApps: [...settings.enabledApps],
    endUserProxy: settings.endUserProxy,
    updatedOn: settings.updatedOn ? settings.updatedOn.toISOString() : null,
    theme: themeOf(settings),
  };
}

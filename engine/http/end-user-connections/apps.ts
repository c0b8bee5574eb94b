import { connectableVersion, KIND_FIELDS } from '../../core/connections/connect.ts';
import type { ArgumentEntry, AuthEntry } from '../../core/definitions/index.ts';
import { initials } from '../../core/describe/app-icon.ts';
import { describeArgument } from '../../core/describe/descriptions.ts';
import { iconPath } from '../describe/icon-routes.ts';
import { authorizationMetadataKeys } from '../../core/oauth/post-authorization.ts';
import { findAppConfiguration } from '../../tenancy/app-configurations/app-configurations.ts';
import { embeddingSettings } from '../../tenancy/embedding/settings.ts';
import { GatewayError } from '../../platform/errors/index.ts';
import type { Services } from '../services.ts';

/**
 * The enabled apps an end user could not connect at all: every auth of the version to connect to is OAuth and
 * the company has not configured its client. PUT /v2/embedding answers them as warnings.
 */
export async function unconfiguredOAuthApps(services: Services, companyId: string, enabledApps: readonly string[]): Promise<{ field: string; rule: string; message: string }[]> {
  const warnings = [];
  for (const [i, slug] of enabledApps.entries()) {
    let version;
    try {
      version = connectableVersion(services, slug);
    } catch {
      continue;
    }
    if (version.api.auths.length === 0 || !version.api.auths.every(isOAuth)) continue;
    if (await findAppConfiguration(services, companyId, slug)) continue;
    warnings.push({
      field: `enabledApps[${i}]`,
      rule: 'oauthNotConfigured',
      message: `app "${slug}" signs in only with OAuth and its client is not configured for your company: end users will not see it until PUT /v2/apps/${slug}/configuration`,
    });
  }
  return warnings;
}

/** An app an end user may connect only when the company enabled it (PUT /v2/embedding enabledApps); anything else is 403 APP_NOT_ENABLED. */
export async function requireEnabledApp(services: Services, companyId: string, appSlug: string): Promise<void> {
  const { enabledApps } = await embeddingSettings(services.store, companyId);
  if (!enabledApps.includes(appSlug)) {
    throw GatewayError.of('APP_NOT_ENABLED', `app "${appSlug}" is not enabled for end users: the company adds it to enabledApps with PUT /v2/embedding`);
  }
}

const isOAuth = (auth: AuthEntry) => auth.type === 'OAuth2AuthorizationCode';

/**
 * What the Connect page shows: the enabled apps still loaded, in the order the
 * company listed them, each with the arguments its connect form asks for,
 * described as GET /v2/universal/apps/.../actions/... describes arguments.
 * Every auth of an app is offered, except OAuth while the company has not
 * configured its client for the app (PUT /v2/apps/{slug}/configuration): the
 * end user could only fail at it. An app left with no auth is not offered.
 */
export async function connectApps(services: Services, companyId: string) {
  const { enabledApps } = await embeddingSettings(services.store, companyId);
  const loaded = services.definitions.current().appsBySlug;
  const apps = [];
  for (const slug of enabledApps) {
    const app = loaded.get(slug);
    if (!app) continue;
    let version;
    try {
      version = connectableVersion(services, slug);
    } catch {
      continue; // An app with no version to connect to cannot be offered.
    }
    const configured = version.api.auths.some(isOAuth) ? (await findAppConfiguration(services, companyId, slug)) !== null : false;
    const auths = version.api.auths.filter((auth) => !isOAuth(auth) || configured);
    if (auths.length === 0) continue;
    apps.push({
      slug: app.slug,
      name: app.name,
      initials: initials(app.name),
      iconUrl: `${services.config.publicBaseUrl}${iconPath(app.slug)}`,
      categories: [...(app.definition.categories ?? [])],
      website: app.definition.website ?? null,
      description: app.definition.description ?? null,
      metadataArguments: formArguments(version.api.arguments),
      auths: auths.map(authView),
    });
  }
  return apps;
}

function authView(auth: AuthEntry) {
  return {
    id: auth.id,
    name: auth.definition.name ?? auth.type,
    description: auth.definition.description ?? null,
    help: helpView(auth),
    // Whether connecting asks the app to check the credentials first (the auth's verify): the page says so meanwhile.
    verifies: Boolean((auth.definition as { verify?: unknown }).verify),
    type: auth.type,
    /** What an OAuth sign-in asks the end user to allow, shown before the redirect. */
    scopes: isOAuth(auth) ? [...((auth.definition as { scopes?: string[] }).scopes ?? [])] : [],
    connect: auth.type === 'OAuth2AuthorizationCode' ? ('oauth' as const) : ('form' as const),
    arguments: formArguments(auth.arguments),
    // The account settings this auth's authorization fills in itself (QuickBooks' realmId): the Connect page does not ask them.
    authorizationMetadata: authorizationMetadataKeys(auth),
    credentialFields: auth.type === 'OAuth2AuthorizationCode' ? [] : (KIND_FIELDS[auth.type] ?? []).map(({ key, required }) => ({ key, required })),
  };
}

/** Where to find the key (the auth's help: text, its translations, the provider's https page), or null. */
function helpView(auth: AuthEntry) {
  const help = (auth.definition as { help?: { text: string; url?: string; translations?: Record<string, string> } }).help;
  if (!help) return null;
  return { text: help.text, url: help.url ?? null, translations: { ...help.translations } };
}

function formArguments(args: readonly ArgumentEntry[]) {
  return args.map((arg) => {
    const described = describeArgument(arg, args, '');
    return { ...described, list: described.list ? { ...described.list, optionsPath: null } : null };
  });
}


import { connectableVersion, KIND_FIELDS } from '../../core/connections/connect.ts';
import type { ArgumentEntry, AuthEntry } from '../../core/definitions/index.ts';
import { initials } from '../../core/describe/app-icon.ts';
import { describeArgument } from '../../core/describe/descriptions.ts';
import { iconPath } from '../describe/icon-routes.ts';
import { authorizationMetadataKeys } from '../../core/oauth/post-authorization.ts';
import { embeddingSettings } from '../../tenancy/embedding/settings.ts';
import { GatewayError } from '../../platform/errors/index.ts';
import type { Services } from '../services.ts';

/** An app an end user may connect only when the company enabled it (PUT /v2/embedding enabledApps); anything else is 403 APP_NOT_ENABLED. */
export async function requireEnabledApp(services: Services, companyId: string, appSlug: string): Promise<void> {
  const { enabledApps } = await embeddingSettings(services.store, companyId);
  if (!enabledApps.includes(appSlug)) {
    throw GatewayError.of('APP_NOT_ENABLED', `app "${appSlug}" is not enabled for end users: the company adds it to enabledApps with PUT /v2/embedding`);
  }
}

/**
 * What the Connect page shows: the enabled apps still loaded, in the order the
 * company listed them, each with the arguments its connect form asks for,
 * described as GET /v2/universal/apps/.../actions/... describes arguments.
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
    apps.push({
      slug: app.slug,
      name: app.name,
      initials: initials(app.name),
      iconUrl: `${services.config.publicBaseUrl}${iconPath(app.slug)}`,
      categories: [...(app.definition.categories ?? [])],
      website: app.definition.website ?? null,
      description: app.definition.description ?? null,
      metadataArguments: formArguments(version.api.arguments),
      auths: version.api.auths.map(authView),
    });
  }
  return apps;
}

function authView(auth: AuthEntry) {
  return {
    id: auth.id,
    name: auth.definition.name ?? auth.type,
    type: auth.type,
    connect: auth.type === 'OAuth2AuthorizationCode' ? ('oauth' as const) : ('form' as const),
    arguments: formArguments(auth.arguments),
    // The account settings this auth's authorization fills in itself (QuickBooks' realmId): the Connect page does not ask them.
    authorizationMetadata: authorizationMetadataKeys(auth),
    credentialFields: auth.type === 'OAuth2AuthorizationCode' ? [] : (KIND_FIELDS[auth.type] ?? []).map(({ key, required }) => ({ key, required })),
  };
}

function formArguments(args: readonly ArgumentEntry[]) {
  return args.map((arg) => {
    const described = describeArgument(arg, args, '');
    return { ...described, list: described.list ? { ...described.list, optionsPath: null } : null };
  });
}


/**
 * A company's own settings for one app, secrets opened: the OAuth client it
 * registered with the provider and its credential-exchange endpoint.
 */
export interface OpenedAppConfiguration {
  clientId: string | null;
  clientSecret: string | undefined;
  redirectUri: string | null;
  exchangeUrl: string | null;
  exchangeSecret: string | undefined;
}

/** Where a run finds them; implemented over the tenant records by tenancy/app-configurations/opened.ts. */
export interface AppConfigurations {
  /** The company's configuration of the app; APP_NOT_CONFIGURED (409) when it has none. */
  require(companyId: string, appSlug: string): Promise<OpenedAppConfiguration>;
}

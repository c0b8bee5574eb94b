import { open } from '../../platform/crypto/cipher.ts';
import type { TenancyServices } from '../tenancy-services.ts';
import { requireAppConfiguration } from './app-configurations.ts';
import type { AppConfigurationSecrets } from './schemas.ts';

/** The app configurations a run reads (core/auth/app-configurations.ts), secrets opened with the keyring. */
export function openedAppConfigurations(services: Pick<TenancyServices, 'store' | 'keyring'>) {
  return {
    async require(companyId: string, appSlug: string) {
      const record = await requireAppConfiguration(services, companyId, appSlug);
      const secrets = open<AppConfigurationSecrets>(services.keyring, record.id, record.secrets);
      return { clientId: record.clientId, clientSecret: secrets.clientSecret, redirectUri: record.redirectUri, exchangeUrl: record.exchangeUrl, exchangeSecret: secrets.exchangeSecret };
    },
  };
}

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { serveAdminSocket } from './admin/admin-socket.ts';
import { bootstrap, type BootstrapOutcome } from './companies/bootstrap.ts';
import type { Config } from './config/config.ts';
import { resolveEncryptionKeys } from './credentials/encryption-keys.ts';
import { createKeyring } from './credentials/keyring.ts';
import { secretsReadableCheck } from './credentials/readability-check.ts';
import { DefinitionsLoader, DefinitionsRegistry, watchDefinitions } from './definitions/index.ts';
import type { Logger } from './log/logger.ts';
import { createApp } from './server/app.ts';
import { createHttpServer } from './server/http-server.ts';
import type { ReadinessCheck, Services } from './services.ts';
import { compactionLogging } from './store/embedded/compaction-log.ts';
import { acquireDataDirLock } from './store/embedded/data-dir-lock.ts';
import { openStore } from './store/index.ts';
import { logBaseUrlOverrides } from './runtime/run/base-url-override.ts';
import { runActionForLookups } from './runtime/run/run-for-lookup.ts';
import { createConfiguredHttpClient, type HttpClient } from './runtime/http/index.ts';
import { ensureSigningKey } from './tokens/signing-keys.ts';

export interface RunningGateway {
  server: http.Server;
  port: number;
  services: Services;
  bootstrap: BootstrapOutcome;
  /** Stops accepting, lets in-flight requests finish within the grace period, closes the store. */
  stop(): Promise<void>;
}

/** Opens the store, bootstraps an empty one, and serves the HTTP app: everything `npm start` does but signals. */
/** What tests may put in place of the real thing; production passes nothing. */
export interface GatewayOverrides {
  http?: HttpClient;
}

export async function startGateway(config: Config, logger: Logger, overrides: GatewayOverrides = {}): Promise<RunningGateway> {
  const embedded = !config.mongodbUri;
  const keyring = createKeyring(await resolveEncryptionKeys(config));
  const releaseLock = embedded ? await acquireDataDirLock(config.dataDir) : async () => {};
  const store = await openStore(config, compactionLogging(logger)).catch(async (error: unknown) => {
    await releaseLock();
    throw error;
  });
  const outcome = await bootstrap(store, config.bootstrapApiKey);
  logBootstrap(outcome, logger);
  await ensureSigningKey(store, keyring);
  // Definitions that fail to load do not stop the start: the gateway serves not-ready (503 on /ready and on runs)
  // and logs the located problems, and the fix is taken by hot reload without a restart.
  const definitions = new DefinitionsRegistry(config.definitionsDir, logger, new DefinitionsLoader(config.mapping, config.definitionsLoadThreads));
  // Watching first: a change made while the first load runs is seen and reloaded after it. The other way
  // round, a change between the load's read and the watcher's ready would be missed until that file changed again.
  const stopWatching = await watchDefinitions(definitions, logger);
  await definitions.reload('start');
  logBaseUrlOverrides(config.appBaseUrls, loadedSnapshot(definitions), logger);
  const readiness: ReadinessCheck[] = [definitions.readinessCheck(), secretsReadableCheck(store, keyring)];
  const outbound = overrides.http ?? createConfiguredHttpClient(config);
  const services: Services = { config, store, logger, readiness, keyring, definitions, http: outbound };
  services.runAction = runActionForLookups(services);
  const app = createApp(services);
  const server = createHttpServer(app.callback(), config.server, logger);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const closeAdmin = embedded ? await serveAdminSocket(config.dataDir, { store, keyring }, logger).catch((error: unknown) => {
    logger.warn({ err: error }, 'admin socket unavailable: stop the gateway to use the admin tool');
    return async () => {};
  }) : async () => {};

  let stopping: Promise<void> | null = null;
  const stop = () => {
    stopping ??= (async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Connections left idle by a finished request close at once, not at the keep-alive timeout.
      server.closeIdleConnections();
      const sweep = setInterval(() => server.closeIdleConnections(), 50);
      const grace = setTimeout(() => server.closeAllConnections(), config.shutdownGraceMs);
      await closed;
      clearInterval(sweep);
      clearTimeout(grace);
      await stopWatching();
      await outbound.close();
      await closeAdmin();
      await store.close();
      await releaseLock();
    })();
    return stopping;
  };

  return { server, port: (server.address() as AddressInfo).port, services, bootstrap: outcome, stop };
}

/** The definitions the start loaded, or null when they failed to load (the gateway serves not-ready). */
function loadedSnapshot(definitions: DefinitionsRegistry) {
  try {
    return definitions.current();
  } catch {
    return null;
  }
}

function logBootstrap(outcome: BootstrapOutcome, logger: Logger): void {
  if (outcome.kind === 'skipped' && outcome.ignoredKey) {
    logger.warn(
      'BOOTSTRAP_API_KEY is set but ignored: the store already has a company, and the key is not one of its keys, so it answers 401. ' +
        'It only applies to an empty store; create a key with `npm run admin -- keys:create`.',
    );
  } else if (outcome.kind === 'created' && outcome.resumed) {
    logger.warn({ companyId: outcome.companyId }, 'finished the bootstrap of company "Default" that an earlier start left unfinished');
  }
}

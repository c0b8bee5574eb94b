/**
 * The process entry point (`npm start`): configuration from the environment,
 * the gateway, and the signals that stop it. Everything else lives in
 * startGateway, which tests call directly.
 */
import { ConfigError, loadConfig, type Config } from './config/config.ts';
import { readDotEnv, type DotEnvRead } from './config/dot-env.ts';
import { readSecretFiles } from './config/secret-files.ts';
import { deliverBootstrapKey } from './tenancy/companies/bootstrap-key-delivery.ts';
import { startGateway } from './gateway.ts';
import { docsUrl } from './http/pages/api-docs/docs-url.ts';
import { createLogger, flushLogs } from './platform/log/logger.ts';
import { DataDirLockedError } from './platform/store/embedded/data-dir-lock.ts';

async function main(): Promise<void> {
  let config: Config;
  let dotEnv: DotEnvRead | null;
  try {
    // .env first (development only; the environment wins over it), then secrets given as files (X_FILE).
    dotEnv = readDotEnv();
    config = loadConfig(readSecretFiles(process.env));
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`config error: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const logger = createLogger(config.logLevel, undefined, { maxQueuedBytes: config.logQueueMaxBytes });
  if (dotEnv) logger.info({ file: dotEnv.file, variables: dotEnv.names }, 'read .env (variables already set in the environment win; NODE_ENV=production skips it)');
  const gateway = await startGateway(config, logger).catch((error: unknown) => {
    if (error instanceof ConfigError) process.stderr.write(`config error: ${error.message}\n`);
    else if (error instanceof DataDirLockedError) process.stderr.write(`${error.message}\n`);
    else process.stderr.write(`the gateway could not start: ${(error as Error).message}\n`);
    process.exit(1);
  });

  const { bootstrap } = gateway;
  if (bootstrap.kind === 'created' && bootstrap.generatedKey) {
    // Never to stdout, the log stream: to the terminal when there is one, to a 0600 file in DATA_DIR otherwise.
    // Marked delivered only once it is there, so a kill before that makes the next start issue a new key.
    try {
      await deliverBootstrapKey(bootstrap.generatedKey, { port: gateway.port, dataDir: config.dataDir, terminal: process.stderr, logger });
      await bootstrap.delivered();
    } catch (error) {
      logger.error({ err: error }, 'the generated API key could not be delivered; the next start issues a new one');
    }
  } else if (bootstrap.kind === 'created') {
    logger.info({ companyId: bootstrap.companyId }, 'created company "Default" with BOOTSTRAP_API_KEY');
  } else if (bootstrap.ignoredKey) {
    // Besides the log's warning: a person who typed the key sees why it answers 401, in a sentence (never the key).
    const embedded = gateway.services.store.kind === 'embedded';
    process.stderr.write(
      `BOOTSTRAP_API_KEY is ignored: ${embedded ? `the store in DATA_DIR (${config.dataDir})` : 'the MongoDB store'} already has a company, made by an earlier start, ` +
        'and this key is not one of its keys, so requests with this key answer 401. The key only creates the first company of an empty store: ' +
        `use a key of this store (${embedded ? `${config.dataDir}/bootstrap-api-key if the first start wrote one there, or ` : ''}npm run admin -- keys:create)` +
        (embedded ? ', or start with an empty DATA_DIR (e.g. DATA_DIR=.tmp/demo-data) to have it create the company with this key.\n' : '.\n'),
    );
  }
  logger.info({ port: gateway.port, host: config.host, store: gateway.services.store.kind, docs: docsUrl(config, gateway.port) }, 'gateway listening');

  // SIGTERM (an orchestrator's stop) drains first: /ready turns 503 so a load balancer stops sending, requests are
  // still served for SHUTDOWN_DRAIN_MS, then the listener closes. SIGINT (Ctrl-C) does not wait; nor does a second signal.
  let stopping = false;
  const shutdown = (signal: NodeJS.Signals) => {
    const drainMs = signal === 'SIGTERM' && !stopping ? config.shutdownDrainMs : 0;
    if (stopping) {
      logger.info({ signal }, 'second signal: ending the drain now');
      void gateway.stop({ drainMs: 0 });
      return;
    }
    stopping = true;
    if (drainMs > 0) logger.info({ signal, drainMs }, 'shutting down: /ready answers 503, requests are still served until the drain is over');
    else logger.info({ signal }, 'shutting down: finishing in-flight requests');
    gateway.stop({ drainMs }).then(
      async () => {
        logger.info('gateway stopped');
        await flushLogs();
        process.exit(0);
      },
      async (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        await flushLogs();
        process.exit(1);
      },
    );
  };
  // SIGHUP reloads the app definitions, like a file change does.
  process.on('SIGHUP', () => void gateway.services.definitions.reload('SIGHUP'));
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}

void main();

/**
 * The process entry point (`npm start`): configuration from the environment,
 * the gateway, and the signals that stop it. Everything else lives in
 * startGateway, which tests call directly.
 */
import { ConfigError, loadConfig, type Config } from './config/config.ts';
import { deliverBootstrapKey } from './companies/bootstrap-key-delivery.ts';
import { startGateway } from './gateway.ts';
import { createLogger } from './log/logger.ts';
import { DataDirLockedError } from './store/embedded/data-dir-lock.ts';

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`config error: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const logger = createLogger(config.logLevel);
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
  }
  logger.info({ port: gateway.port, host: config.host, store: gateway.services.store.kind }, 'gateway listening');

  const shutdown = (signal: string) => {
    logger.info({ signal }, 'shutting down: finishing in-flight requests');
    gateway.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  // SIGHUP reloads the app definitions, like a file change does.
  process.on('SIGHUP', () => void gateway.services.definitions.reload('SIGHUP'));
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}

void main();

import { expect } from 'chai';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../engine/config/config.ts';
import { configProblem } from '../helpers/config-problem.ts';
import { runCommand } from '../helpers/process.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const KEY = Buffer.alloc(32, 7).toString('base64');


describe('configuration', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({}, '/srv/gw');
    expect(config).to.include({ port: 8080, host: '0.0.0.0', logLevel: 'info', mongodbUri: undefined, bootstrapApiKey: undefined });
    expect(config.dataDir).to.equal(path.resolve('/srv/gw/data'));
    expect(config.definitionsDir).to.equal(path.resolve('/srv/gw/definitions'));
    expect(config.encryptionKeys).to.equal(undefined);
    expect(config.definitionsLoadThreads).to.equal(Math.max(1, os.availableParallelism() - 1));
    expect(config.mappingWorkers).to.deep.equal({ workers: Math.min(4, Math.max(1, os.availableParallelism() - 1)), fromBytes: 256 * 1024 });
    expect(config.storeQueryTimeoutMs).to.equal(5000);
    expect(config).to.include({ shutdownGraceMs: 10_000, shutdownDrainMs: 5_000 });
    expect(config.storeCompactionIntervalMs).to.equal(60_000);
    expect(config.webhooks).to.deep.equal({
      retryWindowMs: 86_400_000, retryBaseMs: 30_000, retryMaxDelayMs: 3_600_000, timeoutMs: 10_000, concurrency: 8, pollIntervalMs: 1_000, deliveriesKept: 100, maxPending: 1_000, maxAttempts: 50,
    });    expect(config.proxy).to.deep.equal({ maxRequestBytes: 100 * 1024 * 1024, maxResponseBytes: 100 * 1024 * 1024, totalTimeoutMs: 300_000, retryBodyBytes: 1024 * 1024 });
  });

  it('reads every variable', () => {
    const config = loadConfig(
      { PORT: '9090', HOST: '127.0.0.1', DATA_DIR: '/var/gw', DEFINITIONS_DIR: 'defs', MONGODB_URI: 'mongodb://db:27017/gw', ENCRYPTION_KEY: KEY, BOOTSTRAP_API_KEY: 'a'.repeat(24), LOG_LEVEL: 'debug' },
      '/srv/gw',
    );
    expect(config).to.include({ port: 9090, host: '127.0.0.1', dataDir: '/var/gw', definitionsDir: '/srv/gw/defs', mongodbUri: 'mongodb://db:27017/gw', logLevel: 'debug' });
    expect(config.encryptionKeys).to.deep.equal([KEY]);
    expect(loadConfig({ DEFINITIONS_LOAD_THREADS: '1' }).definitionsLoadThreads).to.equal(1);
    expect(loadConfig({ DATA_DIR: '/var/gw' }).definitionsCacheDir).to.equal('/var/gw/cache/definitions');
    expect(loadConfig({}, '/srv/gw').definitionsCacheDir).to.equal('/srv/gw/data/cache/definitions');
    expect(loadConfig({ DEFINITIONS_CACHE_DIR: 'cache' }, '/srv/gw').definitionsCacheDir).to.equal('/srv/gw/cache');
    expect(loadConfig({ DEFINITIONS_CACHE_DIR: '/tmp/defs-cache', DATA_DIR: '/var/gw' }).definitionsCacheDir).to.equal('/tmp/defs-cache');
    expect(loadConfig({ DEFINITIONS_CACHE_DIR: 'off' }).definitionsCacheDir).to.equal(null);
    expect(loadConfig({ STORE_QUERY_TIMEOUT_MS: '250' }).storeQueryTimeoutMs).to.equal(250);
    expect(loadConfig({}).logQueueMaxBytes).to.equal(32 * 1024 * 1024);
    expect(loadConfig({ LOG_QUEUE_MAX_BYTES: '1048576' }).logQueueMaxBytes).to.equal(1_048_576);
    expect(loadConfig({ MAPPING_WORKERS: '0', MAPPING_WORKER_FROM_BYTES: '65536' }).mappingWorkers).to.deep.equal({ workers: 0, fromBytes: 65536 });
    expect(loadConfig({ DATABASE_URL: 'postgresql://gw:pw@db.internal:6432/gw?sslmode=require', ENCRYPTION_KEY: KEY })).to.include({ databaseUrl: 'postgresql://gw:pw@db.internal:6432/gw?sslmode=require', databasePoolMax: 10 });
    expect(loadConfig({}).databaseUrl).to.equal(undefined);
    for (const host of ['::', '::1', '127.0.0.1', 'localhost', 'gw-1.internal', 'gw.example.com.']) expect(loadConfig({ HOST: host }).host).to.equal(host);
    expect(loadConfig({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1', OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=prod,team=a%3Db' }).tracing).to.equal(null);
    expect(loadConfig({ STORE_COMPACTION_INTERVAL_MS: '0' }).storeCompactionIntervalMs).to.equal(0);
    expect(
      loadConfig({
        WEBHOOK_RETRY_WINDOW_MS: '60000', WEBHOOK_RETRY_BASE_MS: '100', WEBHOOK_RETRY_MAX_DELAY_MS: '5000', WEBHOOK_TIMEOUT_MS: '2000',
        WEBHOOK_CONCURRENCY: '3', WEBHOOK_POLL_INTERVAL_MS: '250', WEBHOOK_DELIVERIES_KEPT: '10', WEBHOOK_MAX_PENDING: '20', WEBHOOK_MAX_ATTEMPTS: '7',
      }).webhooks,
    ).to.deep.equal({ retryWindowMs: 60_000, retryBaseMs: 100, retryMaxDelayMs: 5_000, timeoutMs: 2_000, concurrency: 3, pollIntervalMs: 250, deliveriesKept: 10, maxPending: 20, maxAttempts: 7 });
    expect(loadConfig({ PROXY_MAX_REQUEST_BYTES: '0', PROXY_MAX_RESPONSE_BYTES: '1024', PROXY_TOTAL_TIMEOUT_MS: '1000', PROXY_RETRY_BODY_BYTES: '0' }).proxy).to.deep.equal({
      maxRequestBytes: 0,
      maxResponseBytes: 1024,
      totalTimeoutMs: 1000,
      retryBodyBytes: 0,
    });
  });

  const cases: [string, Record<string, string>, RegExp][] = [
    ['PORT not a number', { PORT: 'abc' }, /^PORT must be an integer from 0 to 65535 \(got "abc"\)$/],
    ['PORT out of range', { PORT: '70000' }, /^PORT must be an integer from 0 to 65535/],
    ['MAPPING_WORKERS out of range', { MAPPING_WORKERS: '-1' }, /^MAPPING_WORKERS must be an integer from 0 to 64 \(got "-1"\)$/],
    ['MAPPING_WORKER_FROM_BYTES not a number', { MAPPING_WORKER_FROM_BYTES: '256k' }, /^MAPPING_WORKER_FROM_BYTES must be an integer from 1 to 1073741824 \(got "256k"\)$/],
    ['an empty variable', { HOST: '  ' }, /^HOST is set but empty/],
    ['LOG_QUEUE_MAX_BYTES below 1 MiB', { LOG_QUEUE_MAX_BYTES: '4096' }, /^LOG_QUEUE_MAX_BYTES must be an integer from 1048576 to 1073741824 \(got "4096"\)$/],
    ['LOG_LEVEL unknown', { LOG_LEVEL: 'loud' }, /^LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent \(got "loud"\)$/],
    ['MONGODB_URI not a mongodb URL', { MONGODB_URI: 'http://db', ENCRYPTION_KEY: KEY }, /^MONGODB_URI must be a mongodb:\/\/ or mongodb\+srv:\/\/ connection string$/],
    ['MONGODB_URI without ENCRYPTION_KEY', { MONGODB_URI: 'mongodb://db/gw' }, /^ENCRYPTION_KEY is required when MONGODB_URI is set/],
    ['DATABASE_URL without ENCRYPTION_KEY', { DATABASE_URL: 'postgres://gw:pw@db:5432/gw' }, /^ENCRYPTION_KEY is required when DATABASE_URL is set/],
    ['DATABASE_URL of another scheme, its password never shown', { DATABASE_URL: 'mysql://gw:s3cret-pw@db/gw', ENCRYPTION_KEY: KEY }, /^DATABASE_URL must start with postgres:\/\/ or postgresql:\/\/ \(it starts with mysql:\/\/\) \(the value is not shown: it may hold a password\)$/],
    ['DATABASE_URL not a URL', { DATABASE_URL: '//gw:s3cret-pw@db/gw', ENCRYPTION_KEY: KEY }, /^DATABASE_URL must be a postgres:\/\/user:password@host:5432\/database connection string, and is not a URL/],
    ['DATABASE_URL with a space', { DATABASE_URL: 'postgres://gw:s3cret pw@db/gw', ENCRYPTION_KEY: KEY }, /^DATABASE_URL must be a postgres:\/\/ connection string without spaces/],
    ['DATABASE_URL with a port out of range', { DATABASE_URL: 'postgres://gw:s3cret-pw@db:70000/gw', ENCRYPTION_KEY: KEY }, /^DATABASE_URL (has a port that is not 1 to 65535|must be a postgres)/],
    ['DATABASE_URL and MONGODB_URI both', { DATABASE_URL: 'postgres://db/gw', MONGODB_URI: 'mongodb://db/gw', ENCRYPTION_KEY: KEY }, /^DATABASE_URL and MONGODB_URI are both set; set one of them/],
    ['DATABASE_POOL_MAX of 0', { DATABASE_POOL_MAX: '0' }, /^DATABASE_POOL_MAX must be an integer from 1 to 1000 \(got "0"\)$/],
    ['ENCRYPTION_KEY of the wrong length', { ENCRYPTION_KEY: Buffer.alloc(16).toString('base64') }, /^ENCRYPTION_KEY must be 32 bytes encoded as base64/],
    ['ENCRYPTION_KEY not base64', { ENCRYPTION_KEY: 'not base64!' }, /^ENCRYPTION_KEY must be 32 bytes/],
    ['the second of two ENCRYPTION_KEYs wrong', { ENCRYPTION_KEY: `${KEY},xyz` }, /^ENCRYPTION_KEY key 2 of 2 must be 32 bytes/],
    ['DEFINITIONS_CACHE_DIR set but empty', { DEFINITIONS_CACHE_DIR: ' ' }, /^DEFINITIONS_CACHE_DIR is set but empty; unset it to use the default$/],
    ['DEFINITIONS_LOAD_THREADS of 0', { DEFINITIONS_LOAD_THREADS: '0' }, /^DEFINITIONS_LOAD_THREADS must be an integer from 1 to 64 \(got "0"\)$/],
    ['SHUTDOWN_DRAIN_MS not a whole number of ms', { SHUTDOWN_DRAIN_MS: '1.5' }, /^SHUTDOWN_DRAIN_MS must be an integer from 0 to 600000 \(got "1.5"\)$/],
    ['STORE_QUERY_TIMEOUT_MS of 0', { STORE_QUERY_TIMEOUT_MS: '0' }, /^STORE_QUERY_TIMEOUT_MS must be an integer from 1 to 600000 \(got "0"\)$/],
    ['STORE_COMPACTION_INTERVAL_MS of a second given as 1s', { STORE_COMPACTION_INTERVAL_MS: '1s' }, /^STORE_COMPACTION_INTERVAL_MS must be an integer from 0 to 86400000 \(got "1s"\)$/],
    ['WEBHOOK_CONCURRENCY of 0', { WEBHOOK_CONCURRENCY: '0' }, /^WEBHOOK_CONCURRENCY must be an integer from 1 to 256 \(got "0"\)$/],
    ['WEBHOOK_RETRY_WINDOW_MS given as 24h', { WEBHOOK_RETRY_WINDOW_MS: '24h' }, /^WEBHOOK_RETRY_WINDOW_MS must be an integer from 100 to 604800000 \(got "24h"\)$/],
    ['WEBHOOK_TIMEOUT_MS over two minutes', { WEBHOOK_TIMEOUT_MS: '600000' }, /^WEBHOOK_TIMEOUT_MS must be an integer from 100 to 120000/],
    ['PROXY_MAX_RESPONSE_BYTES given as 100MB', { PROXY_MAX_RESPONSE_BYTES: '100MB' }, /^PROXY_MAX_RESPONSE_BYTES must be an integer from 1 to 10737418240 \(got "100MB"\)$/],
    ['PROXY_RETRY_BODY_BYTES over 16 MiB', { PROXY_RETRY_BODY_BYTES: '20000000' }, /^PROXY_RETRY_BODY_BYTES must be an integer from 0 to 16777216/],
    ['HOST that is not a hostname', { HOST: 'not a host!!' }, /^HOST must be an IP address \(e\.g\. 0\.0\.0\.0, ::, 127\.0\.0\.1\) or a hostname such as localhost \(got "not a host!!"\)$/],
    ['HOST that looks like an IPv4 address but is not one', { HOST: '999.1.1.1' }, /^HOST must be an IP address .* \(got "999\.1\.1\.1"\)$/],
    ['METRICS_HOST with a scheme', { METRICS_PORT: '9464', METRICS_HOST: 'http://localhost' }, /^METRICS_HOST must be an IP address .* \(got "http:\/\/localhost"\)$/],
    ['OTEL_TRACES_SAMPLER unknown', { OTEL_TRACES_SAMPLER: 'sometimes' }, /^OTEL_TRACES_SAMPLER must be one of always_on, always_off, traceidratio, parentbased_always_on, parentbased_always_off, parentbased_traceidratio \(got "sometimes"\)$/],
    ['OTEL_TRACES_SAMPLER_ARG not a ratio', { OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: 'abc' }, /^OTEL_TRACES_SAMPLER_ARG must be a ratio from 0 to 1 \(e\.g\. 0\.1\) with OTEL_TRACES_SAMPLER=traceidratio \(got "abc"\)$/],
    ['OTEL_TRACES_SAMPLER_ARG above 1', { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '1.5' }, /^OTEL_TRACES_SAMPLER_ARG must be a ratio from 0 to 1/],
    ['OTEL_RESOURCE_ATTRIBUTES entry without a value', { OTEL_RESOURCE_ATTRIBUTES: 'novalue' }, /^OTEL_RESOURCE_ATTRIBUTES must be key=value pairs separated by commas \(with , and = percent-encoded in keys and values\) \(got "novalue"\)$/],
    ['OTEL_RESOURCE_ATTRIBUTES entry without a key', { OTEL_RESOURCE_ATTRIBUTES: 'a=b,=c' }, /^OTEL_RESOURCE_ATTRIBUTES has an entry without a key \(got "=c"\)$/],
    ['WEBHOOK_RETRY_BASE_MS above WEBHOOK_RETRY_MAX_DELAY_MS', { WEBHOOK_RETRY_BASE_MS: '100000', WEBHOOK_RETRY_MAX_DELAY_MS: '1000' }, /^WEBHOOK_RETRY_BASE_MS must be at most WEBHOOK_RETRY_MAX_DELAY_MS \(1000\): the first delay cannot be longer than the longest delay \(got 100000\)$/],
    ['WEBHOOK_RETRY_MAX_DELAY_MS below the default base', { WEBHOOK_RETRY_MAX_DELAY_MS: '1000' }, /^WEBHOOK_RETRY_MAX_DELAY_MS must be at least WEBHOOK_RETRY_BASE_MS \(30000\)/],
    ['BOOTSTRAP_API_KEY too short', { BOOTSTRAP_API_KEY: 'short' }, /^BOOTSTRAP_API_KEY must be 20 to 200 characters/],
    ['BOOTSTRAP_API_KEY with a space', { BOOTSTRAP_API_KEY: 'a key with spaces in it!!' }, /^BOOTSTRAP_API_KEY must be 20 to 200 characters/],
  ];
  for (const [name, env, message] of cases) {
    it(`rejects ${name}, naming the variable`, () => {
      expect(configProblem(env)).to.match(message);
    });
  }

  it('makes `npm start` exit 1 with one line naming the variable', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const result = await runCommand(['--import', 'tsx', 'engine/main.ts'], { PORT: 'eighty', DATA_DIR: dir });
      expect(result.code).to.equal(1);
      expect(result.stderr.trim()).to.equal('config error: PORT must be an integer from 0 to 65535 (got "eighty")');
    } finally {
      await cleanup();
    }
  });

  it('stops the start on a HOST that is no address, naming HOST, not with a resolver error after the data directory is locked', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const result = await runCommand(['--import', 'tsx', 'engine/main.ts'], { HOST: '999.1.1.1', PORT: '0', DATA_DIR: dir });
      expect(result.code).to.equal(1);
      expect(result.stderr.trim()).to.equal('config error: HOST must be an IP address (e.g. 0.0.0.0, ::, 127.0.0.1) or a hostname such as localhost (got "999.1.1.1")');
    } finally {
      await cleanup();
    }
  });
});

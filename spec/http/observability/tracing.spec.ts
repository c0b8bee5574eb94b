import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { loadConfig } from '../../../engine/config/config.ts';
import { startGateway, type RunningGateway } from '../../../engine/gateway.ts';
import { tracingFromEnv } from '../../../engine/platform/tracing/index.ts';
import { configProblem } from '../../helpers/config-problem.ts';
import { call, pgliteTemplate, TEST_API_KEY } from '../../helpers/gateway.ts';
import { captureLogs } from '../../helpers/log-capture.ts';
import { ROOT, runCommand, spawnGateway } from '../../helpers/process.ts';
import { tempDir } from '../../helpers/temp-dir.ts';
import { definitionsFor, Upstream } from '../../helpers/upstream.ts';
import { eventually } from '../../support/eventually.ts';

const BUNDLED = path.join(ROOT, 'definitions');
const TOKEN = 'ghp_secret_token_never_in_a_span';
const RUN = '/v2/universal/apps/github/actions/list-labels/run';

/** The gateway in this process with `env` and an in-memory exporter in place of the configured ones. */
async function tracedGateway(
  env: Record<string, string>,
  exporter: InMemorySpanExporter,
  upstream: Upstream,
  connection: Record<string, unknown> = { appSlug: 'github', authId: 'personal-access-token', credentials: { token: TOKEN } },
) {
  const { dir, cleanup } = await tempDir();
  const config = loadConfig({
    ...pgliteTemplate(),
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dir,
    BOOTSTRAP_API_KEY: TEST_API_KEY,
    DEFINITIONS_DIR: BUNDLED,
    APP_BASE_URLS: JSON.stringify({ github: `${upstream.url}/gh` }),
    EGRESS_ALLOW: '127.0.0.1/32',
    ...env,
  });
  const gateway: RunningGateway = await startGateway(config, captureLogs().logger, { traceExporter: exporter });
  const gw = { url: `http://127.0.0.1:${gateway.port}`, apiKey: TEST_API_KEY };
  // The GitHub token auth checks the token with GET /user before the connection is stored.
  upstream.on('GET /gh/user', () => ({ body: { login: 'octo' } }));
  const connectionId: string = (await call(gw, 'POST', '/v2/connections', { body: connection })).body.data.id;
  return {
    gw,
    connectionId,
    async stop() {
      await gateway.stop();
      await cleanup();
    },
  };
}

const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
const idOf = (span: ReadableSpan) => span.spanContext().spanId;

describe('OpenTelemetry tracing', function () {
  this.timeout(30_000);

  describe('the OTEL_* variables', () => {
    it('leave tracing off unless an exporter or an OTLP endpoint is given', () => {
      expect(tracingFromEnv({})).to.equal(null);
      expect(tracingFromEnv({ OTEL_SERVICE_NAME: 'gw', OTEL_TRACES_SAMPLER: 'always_on' })).to.equal(null);
      expect(tracingFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).to.deep.equal({ exporters: ['otlp'] });
      expect(tracingFromEnv({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).to.deep.equal({ exporters: ['otlp'] });
      expect(tracingFromEnv({ OTEL_TRACES_EXPORTER: 'console,otlp' })).to.deep.equal({ exporters: ['console', 'otlp'] });
    });

    it('are turned off by OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none, whatever else is set', () => {
      expect(tracingFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' })).to.equal(null);
      expect(tracingFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'none' })).to.equal(null);
    });

    it('refuse what the gateway cannot do, naming the variable', () => {
      expect(configProblem({ OTEL_TRACES_EXPORTER: 'zipkin' })).to.equal('OTEL_TRACES_EXPORTER must be otlp, console or none, or a comma-separated list of them (got "zipkin")');
      expect(configProblem({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).to.equal(
        'OTEL_EXPORTER_OTLP_PROTOCOL must be http/json: the gateway exports OTLP as JSON over HTTP, not grpc or http/protobuf (got "grpc")',
      );
      expect(configProblem({ OTEL_SDK_DISABLED: 'yes' })).to.equal('OTEL_SDK_DISABLED must be true or false (got "yes")');
      expect(configProblem({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).to.equal('OTEL_EXPORTER_OTLP_ENDPOINT must be an http:// or https:// URL');
    });
  });

  describe('a run through the universal endpoint, traced', () => {
    const upstream = new Upstream();
    const exporter = new InMemorySpanExporter();
    let gateway: Awaited<ReturnType<typeof tracedGateway>>;

    before(async () => {
      await upstream.start();
      gateway = await tracedGateway({ OTEL_TRACES_EXPORTER: 'otlp' }, exporter, upstream);
    });
    after(async () => {
      await gateway?.stop();
      await upstream.stop();
    });
    beforeEach(() => {
      exporter.reset();
      upstream.reset();
      upstream.on('GET /gh/repos/octo/hello/labels', () => ({ body: [{ id: 1, name: 'bug', color: 'f00', description: null, default: true }] }));
    });

    /** The spans of the one request whose server span is named `name`, once it has ended. */
    async function traceOf(name: string): Promise<{ server: ReadableSpan; spans: ReadableSpan[] }> {
      const server = await eventually(
        async () => exporter.getFinishedSpans().find((span) => span.kind === SpanKind.SERVER && span.name === name),
        (found) => found !== undefined,
        `a server span named ${name}`,
      );
      if (!server) throw new Error('unreachable');
      return { server, spans: exporter.getFinishedSpans().filter((span) => span.spanContext().traceId === server.spanContext().traceId) };
    }

    it('yields the span tree: server span → store spans, the app call (CLIENT) and the response mapping', async () => {
      const { status } = await call(gateway.gw, 'POST', RUN, { body: { connectionId: gateway.connectionId, arguments: { owner: 'octo', repo: 'hello' } } });
      expect(status).to.equal(200);
      const { server, spans } = await traceOf('POST /v2/universal/apps/:appSlug/actions/:actionSlug/run');
      expect(server.attributes).to.include({ 'http.request.method': 'POST', 'http.route': '/v2/universal/apps/:appSlug/actions/:actionSlug/run', 'http.response.status_code': 200 });
      expect(parentOf(server)).to.equal(undefined);

      const children = spans.filter((span) => parentOf(span) === idOf(server));
      const store = children.filter((span) => span.attributes['db.system.name'] === 'postgresql');
      expect(store.map((span) => span.name)).to.include('findOne connections');
      for (const span of store) expect(span.attributes['db.collection.name']).to.equal(span.name.split(' ')[1]);

      const client = children.filter((span) => span.kind === SpanKind.CLIENT);
      expect(client).to.have.length(1);
      expect(client[0]!.name).to.equal('GET');
      expect(client[0]!.attributes).to.include({
        'http.request.method': 'GET',
        'server.address': '127.0.0.1',
        'server.port': Number(new URL(upstream.url).port),
        'http.response.status_code': 200,
        'gateway.app.slug': 'github',
        'gateway.action.id': 'list-labels',
      });

      const mapping = children.filter((span) => span.name === 'response mapping');
      expect(mapping).to.have.length(1);
      expect(mapping[0]!.attributes['gateway.mapping.file']).to.match(/list-labels\.yaml$/);
    });

    it('sends the app a traceparent of the request\'s trace whose parent is the client span', async () => {
      await call(gateway.gw, 'POST', RUN, { body: { connectionId: gateway.connectionId, arguments: { owner: 'octo', repo: 'hello' } } });
      const { spans, server } = await traceOf('POST /v2/universal/apps/:appSlug/actions/:actionSlug/run');
      const client = spans.find((span) => span.kind === SpanKind.CLIENT)!;
      const [sent] = upstream.calls('GET /gh/repos/octo/hello/labels');
      expect(sent!.headers.traceparent).to.equal(`00-${server.spanContext().traceId}-${idOf(client)}-01`);
      expect(sent!.headers.authorization).to.equal(`Bearer ${TOKEN}`);
    });

    it('makes the server span a child of an incoming traceparent', async () => {
      const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
      const parent = '00f067aa0ba902b7';
      await call(gateway.gw, 'POST', RUN, {
        body: { connectionId: gateway.connectionId, arguments: { owner: 'octo', repo: 'hello' } },
        headers: { traceparent: `00-${traceId}-${parent}-01` },
      });
      const { server } = await traceOf('POST /v2/universal/apps/:appSlug/actions/:actionSlug/run');
      expect(server.spanContext().traceId).to.equal(traceId);
      expect(parentOf(server)).to.equal(parent);
      const [sent] = upstream.calls('GET /gh/repos/octo/hello/labels');
      expect(sent!.headers.traceparent).to.match(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
    });

    it('puts no credential, query string or body in any span', async () => {
      // The one query parameter a run takes (any other is refused before it runs).
      const ran = await call(gateway.gw, 'POST', `${RUN}?version=published`, { body: { connectionId: gateway.connectionId, arguments: { owner: 'octo', repo: 'hello', perPage: 7 } } });
      expect(ran.status).to.equal(200);
      const { spans } = await traceOf('POST /v2/universal/apps/:appSlug/actions/:actionSlug/run');
      const text = JSON.stringify(spans.map((span) => ({ name: span.name, attributes: span.attributes, events: span.events, status: span.status })));
      expect(upstream.calls('GET /gh/repos/octo/hello/labels')[0]!.query.get('per_page')).to.equal('7');
      for (const secret of [TOKEN, TEST_API_KEY, 'version=published', 'per_page', '"bug"', 'octo']) expect(text, secret).not.to.include(secret);
    });

    it('traces a proxied call as a run: the app call a CLIENT child of the server span (app, (proxy)), its traceparent sent, no path or credential in a span', async () => {
      const proxied = `/v2/proxy/${gateway.connectionId}/repos/octo/hello/labels?probe=query-value`;
      const answer = await fetch(`${gateway.gw.url}${proxied}`, { headers: { authorization: `Bearer ${TEST_API_KEY}`, traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' } });
      expect(answer.status).to.equal(200);
      await answer.text();
      const { server, spans } = await traceOf('GET /v2/proxy/:connectionId/*path');
      expect(server.attributes['url.path']).to.equal(`/v2/proxy/${gateway.connectionId}/…`);
      expect(server.spanContext().traceId).to.equal('4bf92f3577b34da6a3ce929d0e0e4736');
      const client = spans.filter((span) => span.kind === SpanKind.CLIENT && parentOf(span) === idOf(server));
      expect(client).to.have.length(1);
      expect(client[0]!.attributes).to.include({ 'http.request.method': 'GET', 'http.response.status_code': 200, 'gateway.app.slug': 'github', 'gateway.action.id': '(proxy)' });
      const [sent] = upstream.calls('GET /gh/repos/octo/hello/labels');
      expect(sent!.headers.traceparent).to.equal(`00-4bf92f3577b34da6a3ce929d0e0e4736-${idOf(client[0]!)}-01`);
      const text = JSON.stringify(spans.map((span) => ({ name: span.name, attributes: span.attributes, events: span.events })));
      for (const secret of [TOKEN, TEST_API_KEY, 'query-value', 'octo', 'labels']) expect(text, secret).not.to.include(secret);
    });

    it('names a request no route matched by its method alone', async () => {
      await call(gateway.gw, 'GET', '/v2/no-such-thing');
      const { server } = await traceOf('GET');
      expect(server.attributes['http.response.status_code']).to.equal(404);
      expect(server.attributes['url.path']).to.equal('/v2/no-such-thing');
    });
  });

  it('puts a token renewal in its own span, the token endpoint call its CLIENT child, no secret in either', async () => {
    const upstream = await new Upstream().start();
    const defs = await definitionsFor(path.join(ROOT, 'spec/fixtures/run-client-credentials'), upstream.url);
    const exporter = new InMemorySpanExporter();
    const secret = 'robot-client-secret-in-no-span';
    const gateway = await tracedGateway({ OTEL_TRACES_EXPORTER: 'otlp', DEFINITIONS_DIR: defs.dir }, exporter, upstream, {
      appSlug: 'robot',
      credentials: { clientId: 'robot-client', clientSecret: secret },
    });
    try {
      upstream.on('POST /robot/oauth/token', () => ({ body: { access_token: 'robot-access-token-in-no-span', token_type: 'bearer', expires_in: 3600 } }));
      upstream.on('GET /robot/jobs', () => ({ body: { jobs: [{ id: 'j1' }] } }));
      exporter.reset();
      const { status } = await call(gateway.gw, 'POST', '/v2/universal/apps/robot/actions/list-jobs/run', { body: { connectionId: gateway.connectionId } });
      expect(status).to.equal(200);
      const server = await eventually(
        async () => exporter.getFinishedSpans().find((span) => span.kind === SpanKind.SERVER),
        (found) => found !== undefined,
        'the server span of the run',
      );
      const spans = exporter.getFinishedSpans().filter((span) => span.spanContext().traceId === server!.spanContext().traceId);
      const renewal = spans.find((span) => span.name === 'token renewal')!;
      expect(renewal, 'a token renewal span').to.not.equal(undefined);
      expect(parentOf(renewal)).to.equal(idOf(server!));
      expect(renewal.attributes).to.include({ 'gateway.connection.id': gateway.connectionId, 'gateway.auth.type': 'OAuth2ClientCredentials' });
      const tokenCall = spans.filter((span) => span.kind === SpanKind.CLIENT && parentOf(span) === idOf(renewal));
      expect(tokenCall.map((span) => span.name)).to.deep.equal(['POST']);
      expect(spans.find((span) => span.name === 'updateOne connections')).to.satisfy((span: ReadableSpan) => parentOf(span) === idOf(renewal));
      const [token] = upstream.calls('POST /robot/oauth/token');
      expect(token!.headers.traceparent).to.equal(`00-${server!.spanContext().traceId}-${idOf(tokenCall[0]!)}-01`);
      const appCall = spans.filter((span) => span.kind === SpanKind.CLIENT && parentOf(span) === idOf(server!));
      expect(appCall.map((span) => span.attributes['gateway.action.id'])).to.deep.equal(['list-jobs']);
      const text = JSON.stringify(spans.map((span) => ({ name: span.name, attributes: span.attributes, events: span.events, status: span.status })));
      expect(text).not.to.include(secret);
      expect(text).not.to.include('robot-access-token-in-no-span');
    } finally {
      await gateway.stop();
      await upstream.stop();
      await defs.cleanup();
    }
  });

  it('with no OTEL_* set makes no span, and the app gets no traceparent', async () => {
    const upstream = await new Upstream().start();
    const exporter = new InMemorySpanExporter();
    const gateway = await tracedGateway({}, exporter, upstream);
    try {
      upstream.on('GET /gh/repos/octo/hello/labels', () => ({ body: [] }));
      const { status } = await call(gateway.gw, 'POST', RUN, { body: { connectionId: gateway.connectionId, arguments: { owner: 'octo', repo: 'hello' } } });
      expect(status).to.equal(200);
      const [sent] = upstream.calls('GET /gh/repos/octo/hello/labels');
      expect(sent!.headers).not.to.have.property('traceparent');
      expect(sent!.headers).not.to.have.property('tracestate');
      expect(exporter.getFinishedSpans()).to.have.length(0);
    } finally {
      await gateway.stop();
      await upstream.stop();
    }
  });

  it('does not even load the SDK when off (only the API), and loads it when OTEL_* turn tracing on', async function () {
    this.timeout(120_000); // two processes, each starting a gateway
    const { dir, cleanup } = await tempDir();
    try {
      const off = await runCommand(['--import', 'tsx', 'spec/http/observability/sdk-loaded.ts'], { DATA_DIR: dir });
      expect(off.code, off.stderr).to.equal(0);
      expect(JSON.parse(off.stdout)).to.deep.equal(['@opentelemetry/api']);
      const on = await runCommand(['--import', 'tsx', 'spec/http/observability/sdk-loaded.ts'], { DATA_DIR: dir, OTEL_TRACES_EXPORTER: 'console' });
      expect(on.code, on.stderr).to.equal(0);
      expect(JSON.parse(on.stdout.trim().split('\n').at(-1)!)).to.include.members(['@opentelemetry/sdk-trace-node', '@opentelemetry/sdk-trace-base']);
    } finally {
      await cleanup();
    }
  });

  it('OTEL_EXPORTER_OTLP_ENDPOINT sends the spans to the collector over OTLP/HTTP, flushed when the gateway stops', async function () {
    this.timeout(60_000); // a spawned gateway's start and stop
    const exports: { path: string; contentType: string; body: any }[] = [];
    const collector = http.createServer((req, res) => {
      let text = '';
      req.on('data', (chunk) => (text += String(chunk)));
      req.on('end', () => {
        exports.push({ path: req.url ?? '', contentType: req.headers['content-type'] ?? '', body: JSON.parse(text) });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    const { dir, cleanup } = await tempDir();
    try {
      const child = await spawnGateway({
        PORT: '0',
        DATA_DIR: dir,
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(collector.address() as AddressInfo).port}`,
        OTEL_SERVICE_NAME: 'gateway-under-test',
      });
      const health = await fetch(`${child.url}/health`);
      expect(health.status).to.equal(200);
      child.child.kill('SIGTERM');
      expect(await child.exited).to.equal(0);
      await eventually(async () => exports.length, (count) => count > 0, 'an OTLP export at the collector');
      expect(exports[0]!.path).to.equal('/v1/traces');
      expect(exports[0]!.contentType).to.match(/application\/json/);
      const resourceSpans = exports.flatMap((e) => e.body.resourceSpans as any[]);
      const service = resourceSpans[0].resource.attributes.find((a: any) => a.key === 'service.name');
      expect(service.value.stringValue).to.equal('gateway-under-test');
      const names = resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s: any) => s.spans.map((span: any) => span.name)));
      expect(names).to.include('GET /health');
    } finally {
      collector.close();
      await cleanup();
    }
  });
});

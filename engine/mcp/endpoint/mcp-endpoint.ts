import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createMcpHandler, isLegacyRequest, PROTOCOL_VERSION_META_KEY, ProtocolError, ProtocolErrorCode, Server, SUPPORTED_PROTOCOL_VERSIONS, type McpRequestContext } from '@modelcontextprotocol/server';
import type { RunFacts } from '../../core/run/run-facts.ts';
import { bearerTokenOf } from '../../platform/auth/bearer.ts';
import { GatewayError } from '../../platform/errors/index.ts';
import { cutText } from '../../platform/cut-text.ts';
import { PACKAGE_ROOT } from '../../platform/package-root.ts';
import { embeddingSettings } from '../../tenancy/embedding/settings.ts';
import { originOf } from '../../tenancy/embedding/origins.ts';
import { callRequest } from '../calls/call-request.ts';
import { callTool } from '../calls/call-tool.ts';
import { callerOf, type Caller } from '../caller/caller.ts';
import { messageProblem } from './params-check.ts';
import { CONNECTION_ID_HEADER, scopeOf } from '../caller/scope.ts';
import type { McpServices } from '../mcp-services.ts';
import { toolSetOf, type ToolSet } from '../tools/tool-set.ts';
import { acceptSpelledOut } from './accept.ts';
import { jsonRpcError, requestIdOf, unauthorized } from './answers.ts';
import { CALLER_ENDED, ListenQuota } from './listen-quota.ts';
import { protectedResourceMetadata, resourceMetadataPath } from './protected-resource.ts';
import { setAsideArguments } from './set-aside-arguments.ts';

/** The path of the MCP endpoint. */
export const MCP_PATH = '/mcp';
/** The most tools one tools/list page holds; a larger scope pages (nextCursor). */
export const TOOLS_PAGE_SIZE = 1000;

const VERSION = (JSON.parse(readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/** One exchange as the composition root hands it over (the http surface's mounts give these; nothing of Koa). */
export interface McpExchange {
  requestId: string;
  /** The JSON body, already read and parsed under the gateway's limits; undefined without one. */
  body: unknown;
  recordRun(facts: RunFacts): void;
}

export interface McpRoute {
  path: string;
  methods: readonly string[];
  handle(request: Request, exchange: McpExchange): Promise<Response>;
}

export interface McpEndpoint {
  /** POST /mcp, and GET of its protected resource metadata. */
  routes: McpRoute[];
  /** Tells every open subscriptions/listen stream that asked for it that the tools changed (a definitions reload). */
  toolsChanged(): void;
  /** Ends the open streams and in-flight exchanges (shutdown). */
  close(): Promise<void>;
}

/** What one request's server instance is built for: who asks, and the tools they see. */
interface RequestScope {
  caller: Caller;
  tools: ToolSet;
  exchange: McpExchange;
  /** A tools/call's params.arguments as sent: the SDK is handed the message without them (set-aside-arguments.ts). */
  arguments: unknown;
}

/**
 * The MCP endpoint: the Streamable HTTP transport of the current
 * specification (2026-07-28, and the 2025 revisions statelessly, through the
 * SDK's createMcpHandler), stateless: a fresh server instance per request,
 * nothing kept between requests, so any gateway of a fleet answers any
 * request. Before the SDK sees a request: the bearer token (401 with a
 * WWW-Authenticate challenge), the Origin (403), and the scope of
 * connections (400 when the Connection-Id header cannot be used).
 */
export function createMcpEndpoint(services: McpServices): McpEndpoint {
  const resource = `${services.config.publicBaseUrl}${MCP_PATH}`;
  const metadataUrl = `${services.config.publicBaseUrl}${resourceMetadataPath(MCP_PATH)}`;
  const ownOrigins = new Set([originOf(services.config.publicBaseUrl), originOf(services.config.embeddedBaseUrl)].filter((o): o is string => o !== null));
  const scopes = new WeakMap<object, RequestScope>();
  const listens = new ListenQuota(services.config.mcp.maxSubscriptionsPerCompany);
  /** The open listen streams of end users: each ends when its token expires, or when a re-check before a notice finds its caller gone. */
  const endUserStreams = new Set<{ token: string; end(message: string): void }>();

  const handler = createMcpHandler((context: McpRequestContext) => serverFor(scopes.get(context.authInfo?.extra ?? {}), context.era), {
    onerror: (error) => services.logger.debug({ err: error }, 'mcp: request refused by the transport'),
    maxSubscriptions: services.config.mcp.maxSubscriptions,
  });

  function serverFor(scope: RequestScope | undefined, era: McpRequestContext['era']): Server {
    if (!scope) throw new Error('mcp: a request reached the SDK without its scope');
    const server = new Server(
      { name: 'integration-gateway', title: 'Integration gateway', version: VERSION },
      {
        // A list_changed notice reaches a client only on a 2026-07-28 subscriptions/listen stream: the 2025 revisions'
        // GET stream is not served (405), so a client that opened with `initialize` is not told it will hear one.
        capabilities: { tools: era === 'modern' ? { listChanged: true } : {} },
        instructions: 'Each tool runs one action of a connected app account. List actions page: pass the result\'s meta.cursor back as the cursor argument for the next page.',
        cacheHints: { 'tools/list': { ttlMs: 30_000, cacheScope: 'private' } },
      },
    );
    // A method of no handler: named, with what is served (the SDK says only "Method not found").
    server.fallbackRequestHandler = async (request) => {
      throw new ProtocolError(ProtocolErrorCode.MethodNotFound, `method ${quoted(request.method)} is not served: ${era === 'modern' ? SERVED_MODERN : SERVED_LEGACY}`);
    };
    server.setRequestHandler('tools/list', async (request) => listPage(scope.tools, request.params?.cursor));
    server.setRequestHandler('tools/call', async (request, ctx) => {
      const target = scope.tools.targets.get(request.params.name);
      if (!target) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `unknown tool ${quoted(request.params.name)}: tools/list names the tools of the connections in scope`);
      const call = { companyId: scope.caller.companyId, arguments: scope.arguments, signal: ctx.mcpReq.signal, requestId: scope.exchange.requestId, recordRun: scope.exchange.recordRun };
      return target.kind === 'request' ? await callRequest(services, { ...call, target }) : await callTool(services, { ...call, target });
    });
    return server;
  }

  async function handleMcp(request: Request, exchange: McpExchange): Promise<Response> {
    const id = requestIdOf(exchange.body);
    const token = bearerTokenOf(request.headers.get('authorization') ?? undefined);
    const caller = await callerOf(services, token, exchange.requestId);
    if (!caller) return unauthorized(metadataUrl, token !== null, id);
    // One message a request: a batch of 50 tools/call ran 50 runs at once under one request line, one set of
    // metrics and none of the checks below (MCP 2025-06-18 removed batching; no client of this server sends one).
    if (Array.isArray(exchange.body)) return jsonRpcError(400, ProtocolErrorCode.InvalidRequest, BATCH_REFUSED, null);
    const origin = request.headers.get('origin');
    if (origin !== null && !ownOrigins.has(origin) && !(await embeddingSettings(services.store, caller.companyId)).allowedOrigins.includes(origin)) {
      return jsonRpcError(403, -32000, `origin ${origin} is not one of your company's allowed origins: add it to allowedOrigins with PUT /v2/embedding`, id);
    }
    let tools: ToolSet;
    try {
      const connections = await scopeOf(services, caller, request.headers.get(CONNECTION_ID_HEADER));
      // <app>_request tools: for an API key always (as /v2/proxy), for an end user where the company opened the proxy to end users.
      const proxy = caller.kind === 'apiKey' || (await embeddingSettings(services.store, caller.companyId)).endUserProxy;
      tools = toolSetOf(services.definitions.current(), connections, { proxy, baseUrls: services.run.settings.appBaseUrls });
    } catch (error) {
      if (!(error instanceof GatewayError) || error.status >= 500) throw error;
      return jsonRpcError(400, ProtocolErrorCode.InvalidParams, error.message, id);
    }
    const invalid = messageProblem(exchange.body);
    if (invalid) return jsonRpcError(400, invalid.code, invalid.message, id);
    const unspoken = unspokenVersion(request.headers.get('mcp-protocol-version'), exchange.body);
    if (unspoken) return jsonRpcError(400, -32000, unspoken, id);
    const message = setAsideArguments(exchange.body);
    // The 2025 revisions' transport reads Accept literally (`*/*` was 406); the 2026-07-28 one does not look at it.
    if (await isLegacyRequest(request, message.body)) {
      const accepted = acceptSpelledOut(request);
      if (!(accepted instanceof Request)) return jsonRpcError(406, -32000, accepted.notAcceptable, id);
      request = accepted;
    }
    const listening = ListenQuota.asksToListen(exchange.body);
    // A token past its exp (still admitted within the clock skew a request is allowed) would open a stream only to end
    // it at once, and a client listening again would loop until the skew is over: it is told the expiry instead.
    if (listening && caller.kind === 'endUser' && caller.expiresAt <= Date.now()) return jsonRpcError(200, CALLER_ENDED, TOKEN_EXPIRED, id);
    const giveBack = listening ? listens.take(caller.companyId) : undefined;
    if (giveBack === null) {
      return jsonRpcError(200, -32603, `subscription limit reached for your company: it holds ${listens.perCompany} subscriptions/listen streams open on this gateway (MCP_MAX_SUBSCRIPTIONS_PER_COMPANY); close one before listening again`, id);
    }
    const extra = { scope: true };
    scopes.set(extra, { caller, tools, exchange, arguments: message.arguments });
    const answer = handler.fetch(request, { parsedBody: message.body, authInfo: { token: 'verified', clientId: caller.companyId, scopes: [], extra } });
    if (!giveBack) return await answer;
    if (caller.kind !== 'endUser') {
      try {
        return ListenQuota.held(await answer, giveBack, id).response;
      } catch (error) {
        giveBack();
        throw error;
      }
    }
    // An end user's stream lasts no longer than the token it was opened with (an API key has no expiry; a revoked
    // key's streams end with nothing: its company's own backend holds them).
    let timer: NodeJS.Timeout | undefined;
    const stream = { token: token!, end: (_message: string) => {} };
    const release = () => {
      clearTimeout(timer);
      endUserStreams.delete(stream);
      giveBack();
    };
    try {
      const held = ListenQuota.held(await answer, release, id);
      stream.end = held.end;
      endUserStreams.add(stream);
      timer = setTimeout(() => held.end(TOKEN_EXPIRED), Math.max(0, caller.expiresAt - Date.now()));
      timer.unref();
      return held.response;
    } catch (error) {
      release();
      throw error;
    }
  }

  /**
   * Before a list_changed notice goes out, each end user's stream has its caller checked again (the token, the end
   * user still there): a stream whose caller is no longer valid ends instead of hearing it.
   */
  async function toolsChanged(): Promise<void> {
    try {
      await Promise.all(
        [...endUserStreams].map(async (stream) => {
          if (!(await callerOf(services, stream.token, 'mcp-listen-recheck'))) stream.end(CALLER_GONE);
        }),
      );
    } catch (error) {
      services.logger.warn({ err: error }, 'mcp: listen streams could not be checked again before a tools notice');
    } finally {
      handler.notify.toolsChanged();
    }
  }

  return {
    routes: [
      { path: MCP_PATH, methods: ['POST'], handle: handleMcp },
      {
        path: resourceMetadataPath(MCP_PATH),
        methods: ['GET'],
        handle: async () => Response.json(protectedResourceMetadata(resource), { headers: { 'cache-control': 'public, max-age=3600' } }),
      },
    ],
    toolsChanged: () => void toolsChanged(),
    close: () => handler.close(),
  };
}

/** One page of the scope's tools: TOOLS_PAGE_SIZE from the offset the cursor holds. */
function listPage(tools: ToolSet, cursor: string | undefined): { tools: ToolSet['tools'][number][]; nextCursor?: string } {
  let offset = 0;
  if (cursor !== undefined) {
    offset = /^\d{1,9}$/.test(cursor) ? Number(cursor) : -1;
    // Only what a page gave (a multiple of the page size): "1" would skip a tool.
    if (offset <= 0 || offset % TOOLS_PAGE_SIZE !== 0 || offset >= tools.tools.length) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `cursor ${JSON.stringify(cutText(cursor, 40))} is not one tools/list gave`);
  }
  const page = offset === 0 && tools.tools.length <= TOOLS_PAGE_SIZE ? (tools.tools as ToolSet['tools'][number][]) : tools.tools.slice(offset, offset + TOOLS_PAGE_SIZE);
  const next = offset + TOOLS_PAGE_SIZE;
  return next < tools.tools.length ? { tools: page, nextCursor: String(next) } : { tools: page };
}

/** The revisions served with the per-request _meta envelope (the SDK does not export its list). */
const MODERN_REVISIONS = ['2026-07-28'];

/**
 * An MCP-Protocol-Version header naming no revision the server speaks, on a message without the 2026-07-28 _meta
 * envelope, said with every revision it does speak: the SDK's legacy transport answers it with only the 2025 ones, as
 * if 2026-07-28 were not served. A message with the envelope is left to the SDK, which names the envelope's revisions.
 */
function unspokenVersion(header: string | null, body: unknown): string | null {
  const version = header?.trim();
  if (!version || MODERN_REVISIONS.includes(version) || (SUPPORTED_PROTOCOL_VERSIONS as readonly string[]).includes(version)) return null;
  const meta = (body as { params?: { _meta?: Record<string, unknown> } } | null)?.params?._meta;
  if (meta !== null && typeof meta === 'object' && PROTOCOL_VERSION_META_KEY in meta) return null;
  return `MCP-Protocol-Version ${JSON.stringify(version.slice(0, 40)).slice(1, -1)} is not supported: send ${MODERN_REVISIONS.join(', ')} (with the per-request _meta), or one of ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')} after initialize`;
}

const SERVED_LEGACY = 'this server serves tools (tools/list, tools/call), besides initialize and ping; not resources, prompts, completions or logging';
const SERVED_MODERN = 'this server serves tools (tools/list, tools/call), besides server/discover and subscriptions/listen; not resources, prompts, completions or logging';

/** A name the client sent, in quotes, its first 100 characters (and how long it was) when longer: no tool or method name is that long. */
function quoted(name: string): string {
  return name.length <= 100 ? JSON.stringify(name) : `${JSON.stringify(cutText(name, 100)).slice(0, -1)}..." (${name.length} characters)`;
}

const TOKEN_EXPIRED = 'your end-user token expired, so this subscriptions/listen stream ends: listen again with a new token from GET /v1/users/{userId}/token';
const CALLER_GONE = 'your end-user token is no longer valid (the end user was deleted, or the token expired), so this subscriptions/listen stream ends';
const BATCH_REFUSED = 'a JSON-RPC batch (an array of messages) is not accepted: send one message per POST, as MCP 2025-06-18 and later do';

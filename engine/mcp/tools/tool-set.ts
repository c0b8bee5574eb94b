import type { ActionEntry, AppVersion, DefinitionsSnapshot } from '../../core/definitions/index.ts';
import type { ConnectionRecord } from '../../platform/store/index.ts';
import { annotationsOf, type ToolAnnotations } from './annotations.ts';
import { inputSchemaOf, type JsonSchema, type ObjectSchema } from './input-schema.ts';
import { requestToolOf } from './request-tool.ts';
import { toolName } from './tool-name.ts';

/** A tool as tools/list shows it. */
export interface Tool {
  name: string;
  title: string;
  description: string;
  inputSchema: ObjectSchema;
  annotations: ToolAnnotations;
}

/** What a tool runs, through one of these connections (two or more: the caller names one in connectionId). */
export type ToolTarget = ActionTarget | RequestTarget;

/** An action of a version. */
export interface ActionTarget {
  kind: 'action';
  version: AppVersion;
  action: ActionEntry;
  connections: readonly ConnectionRecord[];
  /** With two or more connections: the argument that names the one to run as (connectionArgumentOf). */
  connectionArgument: string;
}

/** A request of the caller's own to the version's API, through the proxy (request-tool.ts). */
export interface RequestTarget {
  kind: 'request';
  version: AppVersion;
  connections: readonly ConnectionRecord[];
  /** With two or more connections: the argument that names the one to run as (connectionArgumentOf). */
  connectionArgument: string;
}

/** Who sees `<app>_request` tools: API keys always, end users where the company opened the proxy to them (PUT /v2/embedding endUserProxy). */
export interface ToolSetOptions {
  proxy: boolean;
  /** APP_BASE_URLS: where an app's requests really go, when it sets one (the request tool names it). */
  baseUrls?: Readonly<Record<string, string>>;
}

/** The tools of one scope (a set of connections) in one snapshot, in name order, and what each runs. */
export interface ToolSet {
  tools: readonly Tool[];
  targets: ReadonlyMap<string, ToolTarget>;
}

/** The argument that picks the connection when one app has two or more in scope. */
export const CONNECTION_ARGUMENT = 'connectionId';

/**
 * The name of a tool's connection argument: `connectionId`, unless the tool has an argument of its own of that
 * name (an action's body field, say); then `_connectionId`, `__connectionId`... the first it does not have.
 */
export function connectionArgumentOf(properties: Record<string, unknown>): string {
  let name = CONNECTION_ARGUMENT;
  while (Object.hasOwn(properties, name)) name = `_${name}`;
  return name;
}

/** Tool sets kept per snapshot; past this many scopes the snapshot's are dropped and built again as asked. */
const MAX_SCOPES_PER_SNAPSHOT = 1000;
const setsBySnapshot = new WeakMap<DefinitionsSnapshot, Map<string, ToolSet>>();
/** An action's tool without the connection part: the same for every scope, built once per snapshot (the action entry is the snapshot's). */
const baseTools = new WeakMap<ActionEntry, Omit<Tool, 'description'> & { summary: string }>();

/**
 * The tools of a set of connections: one per action of the published
 * version of each connection's app, named `<app>_<action>`, and with
 * `options.proxy`, one `<app>_request` per app whose API allows the proxy.
 * Connections of an app the snapshot lacks (or that has no published
 * version) give none. Cached per snapshot and scope (the connections, their
 * apps and names, the proxy), so a tools/list of an unchanged scope builds
 * nothing.
 */
export function toolSetOf(snapshot: DefinitionsSnapshot, connections: readonly ConnectionRecord[], options: ToolSetOptions): ToolSet {
  let sets = setsBySnapshot.get(snapshot);
  if (!sets) setsBySnapshot.set(snapshot, (sets = new Map()));
  const key = `${options.proxy ? 'p' : '-'}\u0001${connections.map((c) => `${c.id}\u0000${c.appId}\u0000${c.name ?? ''}`).join('\u0001')}`;
  let set = sets.get(key);
  if (!set) {
    if (sets.size >= MAX_SCOPES_PER_SNAPSHOT) sets.clear();
    set = buildToolSet(snapshot, connections, options);
    sets.set(key, set);
  }
  return set;
}

function buildToolSet(snapshot: DefinitionsSnapshot, connections: readonly ConnectionRecord[], options: ToolSetOptions): ToolSet {
  const byApp = new Map<string, ConnectionRecord[]>();
  for (const connection of connections) {
    const list = byApp.get(connection.appId) ?? [];
    list.push(connection);
    byApp.set(connection.appId, list);
  }
  const tools: Tool[] = [];
  const targets = new Map<string, ToolTarget>();
  for (const [appId, appConnections] of byApp) {
    const app = snapshot.apps.get(appId);
    const version = app?.published === undefined ? undefined : app.versions.get(app.published);
    if (!version) continue;
    for (const action of version.actions.values()) {
      const base = baseToolOf(version, action);
      if (targets.has(base.name)) continue;
      const tool = scoped(base, version, appConnections);
      tools.push(tool.tool);
      targets.set(base.name, { kind: 'action', version, action, connections: appConnections, connectionArgument: tool.connectionArgument });
    }
    const request = options.proxy ? requestToolOf(version, (name) => targets.has(name), options.baseUrls?.[version.app.slug]) : null;
    if (request && !targets.has(request.name)) {
      const tool = scoped(request, version, appConnections);
      tools.push(tool.tool);
      targets.set(request.name, { kind: 'request', version, connections: appConnections, connectionArgument: tool.connectionArgument });
    }
  }
  tools.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { tools, targets };
}

function baseToolOf(version: AppVersion, action: ActionEntry): Omit<Tool, 'description'> & { summary: string } {
  let base = baseTools.get(action);
  if (!base) {
    const title = `${version.app.name}: ${action.name}`;
    base = { name: toolName(version.app.slug, action.slug), title, summary: action.description?.trim() || action.name, inputSchema: inputSchemaOf(action, version), annotations: annotationsOf(action, title) };
    baseTools.set(action, base);
  }
  return base;
}

/** The action's tool for these connections of its app: which account it runs as, and with two or more, the argument to pick one (connectionArgumentOf). */
function scoped(base: Omit<Tool, 'description'> & { summary: string }, version: AppVersion, connections: readonly ConnectionRecord[]): { tool: Tool; connectionArgument: string } {
  const { summary, ...tool } = base;
  const app = version.app.name;
  const properties = tool.inputSchema.properties as Record<string, JsonSchema>;
  const connectionArgument = connectionArgumentOf(properties);
  if (connections.length === 1) {
    return { tool: { ...tool, description: `${summary}\n\nRuns in ${app} as ${labelOf(connections[0]!)}.` }, connectionArgument };
  }
  const required = (tool.inputSchema.required as string[] | undefined) ?? [];
  const connectionId: JsonSchema = {
    type: 'string',
    enum: connections.map((c) => c.id),
    description: `The ${app} account to run as: ${connections.map((c) => `${JSON.stringify(c.id)} (${c.name === null ? 'no name' : JSON.stringify(c.name)})`).join(', ')}.`,
  };
  return {
    tool: {
      ...tool,
      description: `${summary}\n\nRuns in ${app} as one of ${connections.length} accounts: name it in ${connectionArgument}.`,
      inputSchema: { ...tool.inputSchema, properties: { [connectionArgument]: connectionId, ...properties }, required: [connectionArgument, ...required] },
    },
    connectionArgument,
  };
}

function labelOf(connection: ConnectionRecord): string {
  return connection.name ? `${JSON.stringify(connection.name)} (connection ${connection.id})` : `connection ${connection.id}`;
}

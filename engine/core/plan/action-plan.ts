import { validationError, type FieldProblem } from '../../platform/errors/index.ts';
import type { LookupList } from '../definitions/generated/definition-types.ts';
import type { ActionEntry, AppVersion, AuthEntry } from '../definitions/snapshot.ts';
import { argumentTree, type ArgumentNode } from '../arguments/argument-tree.ts';
import { CURSOR_ARGUMENT, placeCursor, takesCursorArgument, unknownKeys, withoutValue } from '../arguments/build-request.ts';
import { ABSENT, type CheckContext, type MaybeValue } from '../arguments/check-arguments.ts';
import { fillTemplate, headerText, hostVariables } from '../arguments/host-variables.ts';
import { emptyParts } from '../arguments/placement.ts';
import { problem, shown } from '../arguments/rules.ts';
import { escapedArguments, type SendContext } from '../arguments/send-values.ts';
import type { ArgumentDependencies, BuiltRequest, HostValues, ListOption } from '../arguments/types.ts';
import { fastPathOf } from '../mapping/fast/index.ts';
import { planArgument, type ArgumentPlan } from './argument-plan.ts';
import { fillSplit, fillSplitPath, fillSplitUrl, splitHeaderTemplate, splitPath, splitUrlTemplate, type SplitTemplate, type SplitUrlTemplate } from './templates.ts';
import { isJsonObject } from '../../platform/json-object.ts';

/** What a run gives its plan: the connection's auth and host values, the caller's arguments, and the APP_BASE_URLS base URL if any. */
export interface PlanInput {
  auth: AuthEntry | undefined;
  host?: HostValues | undefined;
  arguments: unknown;
  /** Replaces api.yaml's baseUrl (APP_BASE_URLS). */
  baseUrl?: string | undefined;
}

/**
 * The part of a version's plan every action shares: its API's base URL and
 * headers split, and, per auth, the host arguments (the API's and the
 * auth's) compiled.
 */
export class VersionPlan {
  readonly baseUrl: SplitUrlTemplate;
  readonly headers: readonly { name: string; where: string; template: SplitTemplate }[];
  private readonly overrides = new Map<string, SplitUrlTemplate>();
  private readonly hosts = new Map<AuthEntry | undefined, HostPlan>();

  /** Whether a host argument (the API's, an auth's) has a mapper: only then do mappers see `arguments`. */
  private readonly hostMappers: boolean;

  constructor(readonly version: AppVersion) {
    const { api } = version;
    this.hostMappers = api.arguments.some((a) => a.mapper !== undefined) || [...version.auths.values()].some((auth) => auth.arguments.some((a) => a.mapper !== undefined));
    this.baseUrl = splitUrlTemplate(api.baseUrl, api.definition?.originVariables ?? []);
    this.headers = Object.entries(api.headers).map(([name, value]) => ({ name, where: `header ${name}`, template: splitHeaderTemplate(value) }));
  }

  private readonly authTemplates = new Map<string, SplitTemplate>();

  /**
   * fillTemplate for the auths' templates (applyAuth's `fill`): each split on
   * its first use. Templates come from the version's auth files, so they are few.
   */
  readonly fillTemplate: typeof fillTemplate = (template, variables, where, problems, encode) => {
    let split = this.authTemplates.get(template);
    if (!split) this.authTemplates.set(template, (split = splitHeaderTemplate(template)));
    return fillSplit(split, variables, where, problems, (text, hole) => encode(text, hole.offset));
  };

  /** The base URL template a run fills: api.yaml's, or the APP_BASE_URLS replacement (split once each). */
  baseUrlOf(override: string | undefined): SplitUrlTemplate {
    if (override === undefined) return this.baseUrl;
    let split = this.overrides.get(override);
    if (!split) this.overrides.set(override, (split = splitUrlTemplate(override, this.version.api.definition?.originVariables ?? [])));
    return split;
  }

  hostOf(auth: AuthEntry | undefined): HostPlan {
    let host = this.hosts.get(auth);
    if (!host) this.hosts.set(auth, (host = new HostPlan([...argumentTree(this.version.api.arguments), ...argumentTree(auth?.arguments ?? [])])));
    return host;
  }

  /**
   * The host arguments (the API's and the auth's) checked and sent from the
   * connection's values: what every request of this version carries, an
   * action's run or a proxied call (engine/core/plan/host-request.ts).
   */
  async sendHost(input: Pick<PlanInput, 'auth' | 'host'>, deps: ArgumentDependencies, lookup: CheckContext['lookup'], problems: FieldProblem[]): Promise<Map<string, unknown>> {
    const host = this.hostOf(input.auth);
    const checked = await checkAll(host.arguments, isJsonObject(input.host?.connection) ? input.host.connection : {}, { problems, lookup, strict: false });
    return await sendAll(host.arguments, checked, problems, deps, this.hostMappers);
  }

  /** The base URL (api.yaml's, or APP_BASE_URLS's `override`) and the API's headers, filled with the host variables. */
  fillHost(variables: Readonly<Record<string, string>>, override: string | undefined, problems: FieldProblem[]): { baseUrl: string; headers: Record<string, string> } {
    const baseUrl = fillSplitUrl(this.baseUrlOf(override), variables, 'baseUrl', problems);
    const headers: Record<string, string> = {};
    for (const header of this.headers) headers[header.name] = fillSplit(header.template, variables, header.where, problems, headerText);
    return { baseUrl, headers };
  }

}

/** The API's and one auth's arguments, compiled: what a connection's stored values are checked and sent by. */
class HostPlan {
  readonly arguments: readonly ArgumentPlan[];
  readonly hasBody: boolean;
  constructor(nodes: readonly ArgumentNode[]) {
    this.arguments = nodes.map((node) => planArgument(node, 'connection.'));
    this.hasBody = nodes.some((n) => n.arg.location === 'Body');
  }
}

const versions = new WeakMap<AppVersion, VersionPlan>();
const plans = new WeakMap<ActionEntry, ActionPlan>();

/** The part of a version's plan its actions share, made once per version object. */
export function versionPlanOf(version: AppVersion): VersionPlan {
  let versionPlan = versions.get(version);
  if (!versionPlan) versions.set(version, (versionPlan = new VersionPlan(version)));
  return versionPlan;
}

/**
 * The run plan of an action, made on its first run and kept as long as its
 * version object lives: a reload makes new objects only for the apps whose
 * files changed (loaded-tree.ts keeps the others' entries), so only their
 * plans are made again; the rest are found by the same keys.
 */
export function planOf(version: AppVersion, action: ActionEntry): ActionPlan {
  let plan = plans.get(action);
  if (plan && plan.version.version === version) return plan;
  plans.set(action, (plan = new ActionPlan(versionPlanOf(version), action)));
  return plan;
}

/**
 * One action's run plan: what buildOutboundRequest works out from the
 * definition on every call, worked out once. The argument tree compiled
 * into closures (argument-plan.ts), the top-level keys and the message for
 * an unknown one, the path split at its :params, the base URL and the API's
 * headers split at their {{placeholders}}, whether a body is sent, whether
 * the action takes `cursor`, the Content-Type of a form body, and the
 * response mapping's fast path decided. `build` gives what the reference
 * gives, problems and their order included (spec/runtime/plan/).
 */
export class ActionPlan {
  readonly action: ActionEntry;
  private readonly arguments: readonly ArgumentPlan[];
  private readonly topLevel: ReadonlySet<string>;
  private readonly nodes: readonly ArgumentNode[];
  private readonly takesCursor: boolean;
  private readonly path: ReturnType<typeof splitPath>;
  private readonly actionHasBody: boolean;
  private readonly mappers: boolean;
  /** The Content-Type a body of this API is sent with when it is not JSON (the client's default). */
  readonly bodyHeaders: Readonly<Record<string, string>>;

  constructor(
    readonly version: VersionPlan,
    action: ActionEntry,
  ) {
    this.action = action;
    this.nodes = argumentTree(action.arguments);
    this.arguments = this.nodes.map((node) => planArgument(node, ''));
    this.topLevel = new Set(this.nodes.map((n) => n.arg.key));
    this.takesCursor = takesCursorArgument(action);
    const params = new Map<string, { key: string; allowSlashes: boolean }>();
    for (const plan of this.arguments) {
      if (plan.location === 'Param' && !params.has(plan.sentName)) params.set(plan.sentName, { key: plan.key, allowSlashes: plan.node.arg.allowSlashes === true });
    }
    this.path = splitPath(action.path, (name) => params.get(name));
    this.actionHasBody = this.nodes.some((n) => n.arg.location === 'Body');
    this.mappers = action.arguments.some((a) => a.mapper !== undefined) || version.version.api.arguments.some((a) => a.mapper !== undefined) || [...version.version.auths.values()].some((auth) => auth.arguments.some((a) => a.mapper !== undefined));
    this.bodyHeaders = Object.freeze<Record<string, string>>(version.version.api.definition.bodyEncoding === 'Form' ? { 'content-type': 'application/x-www-form-urlencoded' } : {});
    // The response mapping's fast path (engine/core/mapping/fast/) is compiled now, not on the first response.
    if (action.response) fastPathOf(action.response.expression);
  }

  /** The origin of the URL `build` made with this base URL (APP_BASE_URLS's, else api.yaml's); undefined when it has variables. */
  originOf(baseUrl: string | undefined): string | undefined {
    return this.version.baseUrlOf(baseUrl).origin ?? undefined;
  }

  /** The outbound request, as buildOutboundRequest builds it, or its VALIDATION_ERROR. */
  async build(input: PlanInput, deps: ArgumentDependencies): Promise<BuiltRequest> {
    const { action } = this;
    const problems: FieldProblem[] = [];
    const hostProblems: FieldProblem[] = [];
    let lookups: Map<LookupList, Promise<ListOption[]>> | undefined;
    let given: Record<string, unknown> = {};
    const lookup = (list: LookupList) => {
      lookups ??= new Map();
      let options = lookups.get(list);
      if (!options) lookups.set(list, (options = deps.lookupOptions(list, given)));
      return options;
    };

    if (isJsonObject(input.arguments)) given = input.arguments;
    else if (input.arguments !== undefined && input.arguments !== null) problems.push(problem('arguments', 'type', `must be an object of argument values by key (got ${shown(input.arguments)})`));
    // Problems for the first MAX_PROBLEMS unknown keys (the most a VALIDATION_ERROR lists), the rest counted. The keys
    // are listed once: listing those of a body's worth (85,000) is most of what refusing them costs.
    let notBuilt = 0;
    const keys = Object.keys(given);
    for (const key of keys) {
      if (!this.topLevel.has(key)) {
        const unknown = unknownKeys(action, this.nodes, keys, this.takesCursor);
        problems.push(...unknown.problems);
        notBuilt = unknown.notBuilt;
        break;
      }
    }

    const host = this.version.hostOf(input.auth);
    const hostSent = await this.version.sendHost(input, deps, lookup, hostProblems);

    const checked = await checkAll(this.arguments, given, { problems, lookup, strict: true });
    const sent = await sendAll(this.arguments, checked, problems, deps, this.mappers);

    const parts = emptyParts();
    // Action arguments go last, so they win over an API argument sent under the same name.
    for (const plan of host.arguments) if (hostSent.has(plan.key)) plan.place(hostSent.get(plan.key), parts, hostProblems, plan.field);
    for (const plan of this.arguments) if (sent.has(plan.key)) plan.place(sent.get(plan.key), parts, problems, plan.field);
    parts.hasBody = host.hasBody || this.actionHasBody;
    if (this.takesCursor) placeCursor(action.pagination!.definition, given[CURSOR_ARGUMENT], parts, problems);

    const variables = hostVariables(hostSent, input.host?.metadata);
    const { baseUrl, headers } = this.version.fillHost(variables, input.baseUrl, hostProblems);
    mergeHeaders(headers, parts.headers);
    const path = fillSplitPath(this.path, parts.params, problems);
    const url = trimmedBase(baseUrl) + (path.startsWith('/') ? path : `/${path}`);
    if (hostProblems.length === 0 && !URL.canParse(url)) {
      hostProblems.push(problem('baseUrl', 'hostVariable', `${shown(baseUrl)} is not a valid URL once its host variables are filled`));
    }

    if (problems.length + hostProblems.length > 0) throw validationError([...problems, ...hostProblems.map(withoutValue)], notBuilt);
    return {
      request: { method: action.method, url, query: parts.query, headers, body: parts.hasBody ? parts.body : undefined },
      arguments: Object.fromEntries(checked),
      variables,
      baseUrl,
    };
  }
}

/** Header arguments win over the API's headers of the same name, whatever the letter case (action arguments were placed last). */
export function mergeHeaders(headers: Record<string, string>, placed: Readonly<Record<string, string>>): void {
  for (const name in placed) {
    const lower = name.toLowerCase();
    for (const other of Object.keys(headers)) if (other.toLowerCase() === lower) delete headers[other];
    headers[name] = placed[name]!;
  }
}

/** joinUrl's base: without its trailing slashes. */
export function trimmedBase(baseUrl: string): string {
  let end = baseUrl.length;
  while (end > 0 && baseUrl.charCodeAt(end - 1) === 47) end--;
  return end === baseUrl.length ? baseUrl : baseUrl.slice(0, end);
}

/** checkArguments over compiled arguments. */
async function checkAll(plans: readonly ArgumentPlan[], given: Readonly<Record<string, unknown>>, ctx: CheckContext): Promise<Map<string, unknown>> {
  const checked = new Map<string, unknown>();
  for (const plan of plans) {
    let value = plan.check(Object.hasOwn(given, plan.key) ? given[plan.key] : undefined, plan.field, ctx);
    if (value instanceof Promise) value = await value;
    if (value === '' && plan.dropsEmpty) continue;
    if (value !== ABSENT) checked.set(plan.key, value);
  }
  return checked;
}

const NO_ARGUMENTS: Readonly<Record<string, unknown>> = Object.freeze({});

/** sendAll over compiled arguments; the `arguments` mappers see are made only when some argument has a mapper. */
async function sendAll(plans: readonly ArgumentPlan[], checked: Map<string, unknown>, problems: FieldProblem[], deps: ArgumentDependencies, mappers: boolean): Promise<Map<string, unknown>> {
  // What mappers see: every argument, escaped as its argument says (made only when some argument has a mapper).
  const ctx: SendContext = { problems, evaluateMapper: deps.evaluateMapper, arguments: mappers ? escapedArguments(plans.map((plan) => plan.node), checked) : NO_ARGUMENTS };
  const sent = new Map<string, unknown>();
  for (const plan of plans) {
    if (!checked.has(plan.key)) continue;
    let value: MaybeValue = plan.send(checked.get(plan.key), plan.field, ctx);
    if (value instanceof Promise) value = await value;
    if (value !== ABSENT && value !== undefined) sent.set(plan.key, value);
  }
  return sent;
}

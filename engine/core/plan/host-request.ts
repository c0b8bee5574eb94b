import { validationError, type FieldProblem } from '../../platform/errors/index.ts';
import type { LookupList } from '../definitions/generated/definition-types.ts';
import type { AppVersion } from '../definitions/snapshot.ts';
import { withoutValue } from '../arguments/build-request.ts';
import { hostVariables } from '../arguments/host-variables.ts';
import { emptyParts } from '../arguments/placement.ts';
import { problem, shown } from '../arguments/rules.ts';
import type { ArgumentDependencies, ListOption } from '../arguments/types.ts';
import { mergeHeaders, trimmedBase, versionPlanOf, type PlanInput } from './action-plan.ts';

/** What every request of a version carries whatever it calls: the part of a run's request that is not the action's. */
export interface HostRequest {
  /** The base URL filled from the connection (api.yaml's, or APP_BASE_URLS's), without its trailing slashes. */
  baseUrl: string;
  /** The API's headers and the Header host arguments, filled. */
  headers: Record<string, string>;
  /** The Query host arguments. */
  query: Record<string, string | string[]>;
  /** The host variables (the API's and the auth's argument values, metadata.<field>): what the auth is applied with. */
  variables: Record<string, string>;
}

/**
 * The host part of a request, built by the version's run plan exactly as a
 * run builds it (engine/core/plan/action-plan.ts): the API's and the auth's
 * arguments checked and sent from the connection's values, the base URL
 * and the API's headers filled with them. A value the connection lacks is
 * VALIDATION_ERROR naming it (`connection.subdomain: baseUrl needs
 * {{subdomain}}, which the connection does not set`). Body host arguments
 * are not placed: whoever calls this (the proxy) sends its own body.
 */
export async function buildHostRequest(version: AppVersion, input: Pick<PlanInput, 'auth' | 'host' | 'baseUrl'>, deps: ArgumentDependencies): Promise<HostRequest> {
  const plan = versionPlanOf(version);
  const problems: FieldProblem[] = [];
  let lookups: Map<LookupList, Promise<ListOption[]>> | undefined;
  const lookup = (list: LookupList) => {
    lookups ??= new Map();
    let options = lookups.get(list);
    if (!options) lookups.set(list, (options = deps.lookupOptions(list, {})));
    return options;
  };
  const sent = await plan.sendHost(input, deps, lookup, problems);
  const parts = emptyParts();
  for (const argument of plan.hostOf(input.auth).arguments) {
    if (sent.has(argument.key) && argument.location !== 'Body') argument.place(sent.get(argument.key), parts, problems, argument.field);
  }
  const variables = hostVariables(sent, input.host?.metadata);
  const { baseUrl, headers } = plan.fillHost(variables, input.baseUrl, problems);
  mergeHeaders(headers, parts.headers);
  if (problems.length === 0 && !URL.canParse(baseUrl)) {
    problems.push(problem('baseUrl', 'hostVariable', `${shown(baseUrl)} is not a valid URL once its host variables are filled`));
  }
  if (problems.length > 0) throw validationError(problems.map(withoutValue));
  return { baseUrl: trimmedBase(baseUrl), headers, query: parts.query, variables };
}

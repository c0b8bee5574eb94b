import { runAction } from '../../core/run/run-action.ts';
import { isStackOverflow, tooDeepAnswer } from '../../core/run/deep-answer.ts';
import { envelopeOutcome, errorOutcome, runFactsOf, type RunFacts } from '../../core/run/run-facts.ts';
import { selectConnection } from '../../core/run/select-connection.ts';
import { cutText } from '../../platform/cut-text.ts';
import { GatewayError, validationError } from '../../platform/errors/index.ts';
import type { McpServices } from '../mcp-services.ts';
import type { ActionTarget, ToolTarget } from '../tools/tool-set.ts';
import { cancelledResult, envelopeResult, errorResult, type ToolResult } from './tool-result.ts';

export interface ToolCall<Target extends ToolTarget = ActionTarget> {
  companyId: string;
  target: Target;
  /** The call's `arguments` as the client sent them. */
  arguments: unknown;
  /** Aborts when the client goes away (its stream closed, its request cancelled): the run stops. */
  signal: AbortSignal;
  requestId: string;
  /** Where the run's facts go (the request log line, the metrics), as the run endpoints record them. */
  recordRun(facts: RunFacts): void;
}

/**
 * One tools/call, run as the universal endpoint runs an action: the
 * connection selected by core/run/select-connection.ts (fresh from the
 * store), the arguments built and checked by the action's plan, retries,
 * token renewal, metrics and traces in runAction. Bad arguments, a
 * connection to authorize again, an app that fails or cannot be reached:
 * each is a tool result with isError: true saying what to fix, never a
 * protocol error.
 */
export async function callTool(services: McpServices, call: ToolCall): Promise<ToolResult> {
  const { target } = call;
  let args = call.arguments ?? {};
  let connectionId = target.connections[0]!.id;
  if (target.connections.length > 1) {
    const picked = pickConnection(target, args);
    if (picked instanceof GatewayError) return errorResult(picked, services.config.mcp.resultMaxChars);
    ({ connectionId, args } = picked);
  }
  let facts: RunFacts | undefined;
  try {
    const selected = await selectConnection(services, call.companyId, target.version, { connectionId });
    const start = { companyId: call.companyId, version: target.version, action: target.action, ...selected };
    facts = runFactsOf(start);
    call.recordRun(facts);
    const outcome = await runAction(services.run, { ...start, arguments: args, signal: call.signal, facts });
    facts.outcome = envelopeOutcome(outcome.status, outcome.envelope.success);
    facts.retries = outcome.envelope.meta.retries;
    try {
      return envelopeResult(outcome.status, outcome.envelope, services.config.mcp.resultMaxChars);
    } catch (error) {
      // An app's answer nested thousands deep, kept as the rows (deep-answer.ts): said as the REST answer says it.
      throw (isStackOverflow(error) && tooDeepAnswer({ body: outcome.envelope })) || error;
    }
  } catch (error) {
    if (facts) facts.outcome = errorOutcome(error, call.signal.aborted);
    if (error instanceof GatewayError && error.status < 500) return errorResult(error, services.config.mcp.resultMaxChars);
    if (error instanceof GatewayError && error.code !== 'INTERNAL_ERROR' && error.code !== 'CREDENTIALS_UNREADABLE') {
      // The app unreachable, timing out, answering what cannot be read: what happened, as the REST answer says it.
      return errorResult(error, services.config.mcp.resultMaxChars);
    }
    // The client cancelled the call or went away: the run stopped on that, and nothing failed.
    if (call.signal.aborted) return cancelledResult();
    services.logger.error({ reqId: call.requestId, err: error }, 'mcp: tools/call failed');
    return errorResult(GatewayError.of('INTERNAL_ERROR', `the gateway failed to run this tool; request id ${call.requestId} identifies it in the gateway's logs`), services.config.mcp.resultMaxChars);
  }
}

/** With two or more connections of the app in scope: the one the tool's connection argument (connectionId, as a rule) names, and the other arguments. */
export function pickConnection(target: ToolTarget, args: unknown): { connectionId: string; args: Record<string, unknown> } | GatewayError {
  const ids = target.connections.map((c) => c.id);
  const given = args !== null && typeof args === 'object' && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
  const field = target.connectionArgument;
  const { [field]: picked, ...rest } = given;
  if (picked === undefined || picked === null || picked === '') {
    return validationError([{ field, rule: 'required', message: `is required: the account to run as, one of ${ids.join(', ')}` }]);
  }
  if (typeof picked !== 'string' || !ids.includes(picked)) {
    return validationError([{ field, rule: 'option', message: `must be one of ${ids.join(', ')} (got ${cutText(JSON.stringify(picked) ?? String(picked), 60)})` }]);
  }
  return { connectionId: picked, args: rest };
}

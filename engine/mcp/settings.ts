import { integer, type Env } from '../platform/settings/env.ts';

/** How /mcp answers (MCP_* variables; README's Configuration table). */
export interface McpSettings {
  /** MCP_RESULT_MAX_CHARS: the most characters of a tool result's text; the rows past it are left out of the text, and it says so. */
  resultMaxChars: number;
  /** MCP_MAX_SUBSCRIPTIONS: subscriptions/listen streams one gateway holds open at once; one more is refused. */
  maxSubscriptions: number;
  /** MCP_MAX_SUBSCRIPTIONS_PER_COMPANY: of those, the most one company holds open at once; one more of its own is refused. */
  maxSubscriptionsPerCompany: number;
}

export const DEFAULT_MCP_SETTINGS: McpSettings = { resultMaxChars: 20_000, maxSubscriptions: 1024, maxSubscriptionsPerCompany: 256 };

/** MCP_*: the size of a tool result's text and the number of open change-notification streams. */
export function mcpSettingsFromEnv(env: Env): McpSettings {
  const d = DEFAULT_MCP_SETTINGS;
  return {
    resultMaxChars: integer(env, 'MCP_RESULT_MAX_CHARS', d.resultMaxChars, 1_000, 1_000_000),
    maxSubscriptions: integer(env, 'MCP_MAX_SUBSCRIPTIONS', d.maxSubscriptions, 1, 100_000),
    maxSubscriptionsPerCompany: integer(env, 'MCP_MAX_SUBSCRIPTIONS_PER_COMPANY', d.maxSubscriptionsPerCompany, 1, 100_000),
  };
}

/** A message as the SDK is handed it, and the tool call's arguments set aside from it (undefined when it has none). */
export interface SetAside {
  body: unknown;
  arguments: unknown;
}

/**
 * A tools/call's `params.arguments` taken out of the message before the SDK sees it, `{}` in their place: the SDK's
 * schema copies every key of them into a new object, twice a call (the server's check and the handler's), only to
 * find that they are an object, which params-check.ts has said already; 85,000 unknown keys (a 1 MiB body) held the
 * event loop 1.1 to 1.6 s before the run refused them. The tool runs with the arguments set aside, as they were sent
 * (the run checks each key once). Any other message is handed over as it is; `body` is never changed in place.
 */
export function setAsideArguments(body: unknown): SetAside {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return { body, arguments: undefined };
  const message = body as { method?: unknown; params?: unknown };
  const params = message.params as Record<string, unknown> | null | undefined;
  if (message.method !== 'tools/call' || params === null || typeof params !== 'object' || params.arguments === undefined) return { body, arguments: undefined };
  return { body: { ...message, params: { ...params, arguments: {} } }, arguments: params.arguments };
}

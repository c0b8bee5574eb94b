export { createHttpClient } from './client.ts';
export type { HttpClient, HttpClientOptions } from './client.ts';
export { createOutboundAgent } from './agent.ts';
export { OutboundError } from './outbound-error.ts';
export type { OutboundErrorCode, OutboundErrorDetails, TimeoutPhase } from './outbound-error.ts';
export { DEFAULT_OUTBOUND_SETTINGS } from './settings.ts';
export type { OutboundSettings } from './settings.ts';
export type { JsonValue, OutboundRequest, OutboundResponse } from './types.ts';
export type { QueryValue } from './encode.ts';

export { appCallKey, createAppCallLimiter } from './app-calls.ts';
export type { AppCallKey, AppCallLimiter, Release } from './app-calls.ts';
export { appCallSettingsFromEnv, DEFAULT_APP_CALL_SETTINGS } from './settings.ts';
export type { AppCallSettings } from './settings.ts';

import type { ActionDefinition, ApiDefinition, AppDefinition, Argument, AuthDefinition } from '../../core/definitions/generated/definition-types.ts';

/**
 * An app as the importer made it from a description, before it is written:
 * each definition as data with the comment lines that go above it, each
 * action's offline cases, and what was left out and why.
 */
export interface ImportedApp {
  app: Commented<AppDefinition>;
  api: Commented<ApiDefinition>;
  auths: Commented<AuthDefinition>[];
  actions: ImportedAction[];
  /** Operations (and callbacks, webhooks) not imported, each with the reason. */
  skipped: Skipped[];
  /** What an author should look at: values fixed, parameters dropped, guesses made. */
  notes: string[];
}

export interface Commented<T> {
  /** Lines written above the definition as `# ...` comments (the provider's reference, the operation it came from). */
  comments: string[];
  definition: T;
}

export interface ImportedAction extends Commented<ActionDefinition> {
  /** The offline cases, as the `.test.yaml` file holds them (docs/definitions.md, "Offline tests"). */
  cases: TestCase[];
}

export interface Skipped {
  /** `POST /files (uploadFile)`, or `webhook newPet`. */
  what: string;
  reason: string;
}

/** One case of a `.test.yaml` file. */
export interface TestCase {
  name: string;
  connection?: { auth?: string; metadata?: Record<string, unknown>; credentials?: Record<string, unknown> };
  arguments?: Record<string, unknown>;
  request?: { method?: string; url?: string; query?: Record<string, unknown>; headers?: Record<string, string>; body?: unknown };
  response?: { status: number; headers?: Record<string, string>; body?: unknown };
  expect: { success?: boolean; data?: unknown[]; meta?: Record<string, unknown> } | { error: { code: string } };
}

export type { ActionDefinition, ApiDefinition, AppDefinition, Argument, AuthDefinition };

import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ConnectionSecrets } from '../tenancy/connections/connections.ts';
import { seal } from '../platform/crypto/cipher.ts';
import { createKeyring } from '../platform/crypto/keyring.ts';
import { DefinitionsRegistry, formatProblem, type AppEntry, type AppVersion, type DefinitionsSnapshot } from '../core/definitions/index.ts';
import { DefinitionsLoader, type LoadResult } from '../core/definitions/loader.ts';
import { versionLabel, versionName } from '../core/definitions/layout.ts';
import { readDefinitionFile } from '../core/definitions/source-files.ts';
import { GatewayError } from '../platform/errors/index.ts';
import { newId } from '../platform/ids.ts';
import { createLogger } from '../platform/log/logger.ts';
import { createEgressPolicy } from '../platform/egress/index.ts';
import { createHttpClient } from '../platform/outbound/index.ts';
import { runAction, type RunOutcome } from '../core/run/run-action.ts';
import { DEFAULT_RUN_SETTINGS } from '../core/run/run-services.ts';
import { tenantRunServices } from '../core/run/tenant-run-services.ts';
import { EMPTY_ALLOW_LIST } from '../platform/egress/allow-list.ts';
import type { TenancyServices } from '../tenancy/tenancy-services.ts';
import { DEFAULT_WEBHOOK_SETTINGS } from '../tenancy/webhooks/settings.ts';
import { openEmbeddedStore } from '../platform/store/embedded/nedb-store.ts';
import type { ConnectionRecord, Store } from '../platform/store/index.ts';
import { parseCaseFile, type DefinitionCase } from './case-file.ts';
import { decodedOutcome, encodedArguments } from './case-cursors.ts';
import { CaseNetwork } from './case-network.ts';
import type { CursorScope } from '../core/pagination/index.ts';
import { exampleGaps } from './documented-example.ts';
import { described, differences, formatDifference, MISSING, shown, type Difference } from './structural-diff.ts';

/** One action's case file, found beside the action. */
export interface CaseFile {
  /** Relative to the definitions folder, forward slashes. */
  file: string;
  app: AppEntry;
  version: AppVersion;
  actionId: string;
}

export interface TestRunSummary {
  passed: number;
  failed: number;
  /** 0 all passed, 1 a case failed (or a case file is malformed), 2 usage or load error. */
  exitCode: 0 | 1 | 2;
}

export interface TestRunOptions {
  /** Only this app's cases, by slug or id. */
  app?: string;
  /** How file paths are shown (default: relative to the folder). */
  display?: (file: string) => string;
  /** Each output line, without its newline. */
  write: (line: string) => void;
  /** Usage and load errors (default: `write`). */
  error?: (line: string) => void;
  /** Told how far the run is: definition files loaded, then case files run (a tool's progress line). */
  progress?: (done: number, total: number, what: 'files loaded' | 'case files run') => void;
}

const COMPANY_ID = 'cmp_definition_tests';
/** The OAuth 2.0 client every app is configured with in a test run (what a token renewal sends). */
export const TEST_CLIENT = { clientId: 'test-client-id', clientSecret: 'test-client-secret' } as const;

/**
 * `npm run test:definitions`: loads a definitions folder with the gateway's
 * loader, finds `versions/<v>/actions/<action>.test.yaml` files and runs each
 * case through the engine's runAction (argument building, auth, request
 * encoding, response parsing and mapping, envelope rules, retries) with the
 * network replaced by the case's recorded responses. Prints one line per
 * case, the differences of a failing one by path, and `N passed, M failed`.
 */
export async function runDefinitionTests(dir: string, options: TestRunOptions): Promise<TestRunSummary> {
  const { write } = options;
  const display = options.display ?? ((file: string) => file);
  const error = options.error ?? write;
  const usage = (message: string): TestRunSummary => {
    error(message);
    return { passed: 0, failed: 0, exitCode: 2 };
  };

  const loaded = await new DefinitionsLoader().loadDirectory(dir, undefined, options.progress && ((done, total) => options.progress!(done, total, 'files loaded')));
  if (!loaded.ok) {
    for (const problem of loaded.problems) error(formatProblem(problem, display));
    return usage(`${loaded.problems.length} problem${loaded.problems.length === 1 ? '' : 's'} in the definitions: fix them (npm run validate) before running their tests`);
  }
  const snapshot = loaded.snapshot;
  let only: AppEntry | undefined;
  if (options.app !== undefined) {
    only = snapshot.appsBySlug.get(options.app) ?? snapshot.apps.get(options.app);
    if (!only) return usage(`no app with slug or id "${options.app}" (there are: ${[...snapshot.appsBySlug.keys()].sort().join(', ') || 'none'})`);
  }
  const files = (await findCaseFiles(dir, snapshot)).filter((f) => !only || f.app === only);

  const harness = await Harness.open(dir, loaded);
  let passed = 0;
  let failed = 0;
  try {
    for (const [index, found] of files.entries()) {
      options.progress?.(index, files.length, 'case files run');
      const title = `${found.app.slug} ${versionLabel(found.version.version)} ${found.actionId}`;
      const action = found.version.actions.get(found.actionId);
      if (!action) {
        failed++;
        write(`✘ ${title}: ${display(found.file)} tests an action the version does not have (name the file after the action's id)`);
        continue;
      }
      // Read as the loader reads a definition: a FIFO would never end, a Latin-1 letter would turn into U+FFFD.
      const read = readDefinitionFile(dir, found.file);
      const parsed = read === null ? parseCaseFile('') : 'problem' in read ? { ok: false as const, problems: [{ ...read.problem, message: `${read.problem.code} ${read.problem.message}` }] } : parseCaseFile(read.text);
      if (!parsed.ok) {
        failed++;
        write(`✘ ${title}: ${display(found.file)} is not a valid case file`);
        for (const problem of parsed.problems) write(`    ${display(found.file)}:${problem.line}:${problem.column} ${problem.message}`);
        continue;
      }
      for (const testCase of parsed.cases) {
        const diffs = await harness.run(found.version, found.actionId, testCase);
        if (diffs.length === 0) {
          passed++;
          write(`✔ ${title}: ${testCase.name}`);
        } else {
          failed++;
          write(`✘ ${title}: ${testCase.name}`);
          write(`    at ${display(found.file)}:${testCase.line}`);
          for (const difference of diffs) write(`    ${formatDifference(difference)}`);
        }
      }
    }
  } finally {
    await harness.close();
  }
  write(`${passed} passed, ${failed} failed`);
  return { passed, failed, exitCode: failed ? 1 : 0 };
}

/** Every `<app>/versions/<v>/actions/<action>.test.yaml` of a loaded folder, in path order. */
export async function findCaseFiles(dir: string, snapshot: DefinitionsSnapshot): Promise<CaseFile[]> {
  const found: CaseFile[] = [];
  const apps = [...snapshot.apps.values()].sort((a, b) => folderOf(a).localeCompare(folderOf(b)));
  for (const app of apps) {
    const folder = folderOf(app);
    const versionFolders = await fs.readdir(path.join(dir, folder, 'versions')).catch(() => [] as string[]);
    for (const name of versionFolders.sort()) {
      const versionKey = versionName(name);
      const version = versionKey === 'draft' ? app.draft : versionKey === null ? undefined : app.versions.get(versionKey);
      if (!version) continue;
      const actionsDir = path.join(dir, folder, 'versions', name, 'actions');
      const entries = await fs.readdir(actionsDir).catch(() => [] as string[]);
      for (const entry of entries.sort()) {
        const match = /^(.+)\.test\.ya?ml$/.exec(entry);
        if (!match || entry.startsWith('.')) continue;
        found.push({ file: `${folder}/versions/${name}/actions/${entry}`, app, version, actionId: match[1]! });
      }
    }
  }
  return found;
}

function folderOf(app: AppEntry): string {
  return app.file.split('/')[0]!;
}

/** What one run of a case did: the requests the fake network saw, and the envelope (or error) the run ended with. */
export interface CaseRun {
  network: CaseNetwork;
  outcome: RunOutcome | { error: unknown };
  /** The action and connection the run's cursors are signed for. */
  scope: CursorScope;
}

/** What the runs share: a keyring, an embedded store in a temporary folder, the loaded definitions. */
export class Harness {
  private constructor(
    private readonly services: TenancyServices,
    private readonly dataDir: string,
  ) {}

  static async open(dir: string, loaded: LoadResult): Promise<Harness> {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'definition-tests-'));
    const logger = createLogger('silent');
    let store: Store;
    try {
      store = await openEmbeddedStore(dataDir);
    } catch (error) {
      await fs.rm(dataDir, { recursive: true, force: true });
      throw error;
    }
    const definitions = new DefinitionsRegistry(dir, logger, { loadDirectory: () => Promise.resolve(loaded) });
    await definitions.reload('definition tests');
    const keyring = createKeyring([randomBytes(32).toString('base64')]);
    // Every app is configured for the company, so an OAuth 2.0 token renewal can run: it sends these client credentials.
    const now = new Date();
    for (const app of loaded.snapshot!.apps.values()) {
      const id = newId('cfg');
      await store.appConfigurations.insert({
        id,
        companyId: COMPANY_ID,
        appSlug: app.slug,
        configKey: `${COMPANY_ID}:${app.slug}`,
        clientId: TEST_CLIENT.clientId,
        redirectUri: null,
        exchangeUrl: null,
        secrets: seal(keyring, id, { clientSecret: TEST_CLIENT.clientSecret }),
        hasClientSecret: true,
        hasExchangeSecret: false,
        createdOn: now,
        updatedOn: now,
      });
    }
    return new Harness({ config: { webhooks: DEFAULT_WEBHOOK_SETTINGS, egressAllow: EMPTY_ALLOW_LIST }, store, logger, keyring, definitions }, dataDir);
  }

  /** The keyring the runs' cursors are signed with. */
  get keyring(): TenancyServices['keyring'] {
    return this.services.keyring;
  }

  async close(): Promise<void> {
    await this.services.store.close();
    await fs.rm(this.dataDir, { recursive: true, force: true });
  }

  /** Runs one case; the differences from what it expects (none: it passed). */
  async run(version: AppVersion, actionId: string, testCase: DefinitionCase): Promise<Difference[]> {
    const ran = await this.runOnce(version, actionId, testCase);
    if (Array.isArray(ran)) return ran;
    return [...ran.network.differences, ...compareOutcome(testCase, ran.outcome), ...ran.network.unused(), ...exampleDifferences(version, actionId, testCase, ran.outcome)];
  }

  /**
   * Runs one case once, through the action's run plan or (`reference`) the
   * reference interpretation of its definition; the differences when it
   * cannot run at all (an auth the version does not have).
   */
  async runOnce(version: AppVersion, actionId: string, testCase: DefinitionCase, interpretation: 'plan' | 'reference' = 'plan'): Promise<CaseRun | Difference[]> {
    const auth = testCase.connection.auth !== undefined ? version.auths.get(testCase.connection.auth) : version.api.auths[0];
    if (!auth) {
      return [{ path: 'connection.auth', expected: described(`one of ${[...version.auths.keys()].join(', ')}`), actual: testCase.connection.auth ?? MISSING }];
    }
    const action = version.actions.get(actionId)!;
    const connection = await this.connection(version, auth.id, auth.type, testCase);
    const network = new CaseNetwork(testCase.exchanges);
    // Nothing leaves the process, so the egress policy (a deployment's allow-list) is not applied:
    // a definition on a private address, like a local demo API, is tested like any other.
    const http = createHttpClient({ dispatcher: network.agent, policy: { ...createEgressPolicy(), checkHost: () => null } });
    const scope = { appId: version.app.id, version: version.version, actionId, connectionId: connection.id };
    let outcome: RunOutcome | { error: unknown };
    try {
      outcome = await runAction(tenantRunServices(this.services, { http, settings: DEFAULT_RUN_SETTINGS }), {
        companyId: COMPANY_ID,
        version,
        action,
        // The policy as written (its caps and budget decide as they would), but its waits are not taken: a case runs at once.
        sleep: async () => {},
        connection,
        installation: null,
        endUser: null,
        arguments: encodedArguments(testCase.arguments, this.services.keyring, scope),
        interpretation,
      });
      if (testCase.expect.kind === 'envelope') outcome = decodedOutcome(testCase.expect.meta, outcome, this.services.keyring, scope);
    } catch (error) {
      outcome = { error };
    } finally {
      await http.close();
      await network.close();
    }
    return { network, outcome, scope };
  }

  /** A connection record as a created connection would be: credentials sealed under its id. */
  private async connection(version: AppVersion, authId: string, authType: string, testCase: DefinitionCase): Promise<ConnectionRecord> {
    const id = newId('con');
    const { accessToken, refreshToken, clientId, clientSecret, expiresAt, ...rest } = testCase.connection.credentials as Record<string, string | undefined>;
    const oauth = authType === 'OAuth2AuthorizationCode' || authType === 'OAuth2ClientCredentials';
    const secrets: ConnectionSecrets = { arguments: oauth ? rest : testCase.connection.credentials };
    if (oauth && accessToken !== undefined) secrets.accessToken = String(accessToken);
    if (oauth && refreshToken !== undefined) secrets.refreshToken = String(refreshToken);
    if (oauth && clientId !== undefined) secrets.clientId = String(clientId);
    if (oauth && clientSecret !== undefined) secrets.clientSecret = String(clientSecret);
    const now = new Date();
    const record: ConnectionRecord = {
      id,
      companyId: COMPANY_ID,
      appId: version.app.id,
      appSlug: version.app.slug,
      authId,
      authType,
      endUserId: null,
      name: null,
      metadata: testCase.connection.metadata,
      credentials: seal(this.services.keyring, id, secrets),
      credentialsVersion: 1,
      status: 'active',
      tokenExpiresAt: oauth && expiresAt !== undefined ? new Date(String(expiresAt)) : null,
      createdOn: now,
      updatedOn: now,
    };
    await this.services.store.connections.insert(record);
    return record;
  }
}

/** A documented example's case: the rows it maps to, held to the fields the action's mapping promises (documented-example.ts). */
function exampleDifferences(version: AppVersion, actionId: string, testCase: DefinitionCase, outcome: RunOutcome | { error: unknown }): Difference[] {
  if (testCase.example === undefined || 'error' in outcome) return [];
  const answered = testCase.exchanges.filter((e) => e.response.status < 300).at(-1)?.response;
  if (!answered) return [{ path: 'example', expected: described('a 2xx response: the documented example'), actual: described('no 2xx response in the case') }];
  const source = version.actions.get(actionId)!.definition.response;
  return exampleGaps(source, { status: answered.status, headers: answered.headers, body: answered.body }, outcome.envelope.data);
}

/** What differs between the outcome a case expects and the run's. */
export function compareOutcome(testCase: DefinitionCase, outcome: RunOutcome | { error: unknown }): Difference[] {
  const expected = testCase.expect;
  if ('error' in outcome) {
    const error = outcome.error;
    const code = error instanceof GatewayError ? error.code : 'INTERNAL_ERROR';
    const message = error instanceof Error ? error.message : String(error);
    if (expected.kind === 'envelope') return [{ path: 'expect', expected: described('an envelope'), actual: described(`error ${code}: ${message}`) }];
    const result = differences('expect.error.code', expected.code, code);
    if (expected.message !== undefined) result.push(...differences('expect.error.message', expected.message, message));
    return result;
  }
  const { envelope } = outcome;
  if (expected.kind === 'error') {
    return [{ path: 'expect.error', expected: described(`error ${expected.code}`), actual: described(`an envelope ${shown({ success: envelope.success, data: envelope.data })}`) }];
  }
  const result: Difference[] = [];
  if (expected.success !== undefined) result.push(...differences('expect.success', expected.success, envelope.success).map((d) => withWhy(d, envelope.meta.error)));
  if (expected.data !== undefined) result.push(...differences('expect.data', expected.data, envelope.data));
  if (expected.meta !== undefined) {
    // meta.appError is a subset too (docs/definitions.md): a case names the fields it cares about (its code, say), not the app's whole message.
    const { appError, ...rest } = expected.meta;
    result.push(...differences('expect.meta', rest, envelope.meta, 'subset'));
    if (Object.hasOwn(expected.meta, 'appError')) result.push(...differences('expect.meta.appError', appError, (envelope.meta as Record<string, unknown>).appError ?? MISSING, 'subset'));
  }
  return result;
}

/** A run that failed inside the gateway (a mapping stopped, say) says why beside `got false`: the author sees the cause, not only the flag. */
function withWhy(difference: Difference, error: { code: string; message: string } | undefined): Difference {
  if (difference.actual !== false || error === undefined) return difference;
  return { ...difference, actual: described(`false (meta.error ${error.code}: ${error.message})`) };
}

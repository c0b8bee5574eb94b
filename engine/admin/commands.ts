import { issueApiKey } from '../tenancy/api-keys/api-keys.ts';
import { hasFormat } from '../core/arguments/string-formats.ts';
import { asInvoked, parseCommandLine, usageLine, type CliDeclaration, type CliOption, type CliPositional } from '../platform/cli/command-line.ts';
import { ianaTimeZone } from '../tenancy/companies/time-zone.ts';
import { addMember, createCompany } from '../tenancy/companies/companies.ts';
import { GatewayError } from '../platform/errors/index.ts';
import type { Keyring } from '../platform/crypto/keyring.ts';
import { reencryptAll } from '../tenancy/credentials/reencrypt.ts';
import type { IdPrefix } from '../platform/ids.ts';
import type { MemberRole, Store } from '../platform/store/index.ts';
import { createSigningKey, listSigningKeys, retireSigningKey } from '../tenancy/end-user-tokens/signing-keys.ts';

export interface AdminResult {
  exitCode: number;
  output: string;
}

/** A check of an option's (or positional's) value: the rule it breaks, or null. */
type Rule = (value: string) => string | null;

interface Command {
  summary: string;
  /** Seals or re-seals secrets with the keyring: through a running gateway, only when the tool's keys are the gateway's. */
  usesEncryptionKeys?: true;
  options: Record<string, CliOption>;
  positionals?: CliPositional[];
  /** Checked before the command runs (and before the store is opened): by option name, or by positional name. */
  rules?: Record<string, Rule>;
  run(context: AdminContext, values: Record<string, string | boolean | undefined>, positionals: string[]): Promise<unknown>;
}

/** What a command works on: the store, and the keys that seal secrets in it. */
export interface AdminContext {
  store: Store;
  keyring: Keyring;
}

const ROLES: readonly MemberRole[] = ['owner', 'admin', 'member'];
/** An id as engine/platform/ids.ts makes them: the prefix, then 24 hex digits. */
const idRule =
  (prefix: IdPrefix, what: string): Rule =>
  (value) =>
    new RegExp(`^${prefix}_[0-9a-f]{24}$`).test(value) ? null : `must be ${what} id (${prefix}_ and 24 hex digits), got ${JSON.stringify(value)}`;
const RULES = {
  company: idRule('cmp', 'a company'),
  // The linear check argument values use (a regex with two adjacent [^@\s]+ backtracks quadratically).
  email: (value: string) => (hasFormat('email', value) ? null : `must be an email address (name@example.com), got ${JSON.stringify(value)}`),
  role: (value: string) => (ROLES.includes(value as MemberRole) ? null : 'must be owner, admin or member'),
  timezone: (value: string) =>
    ianaTimeZone(value) ? null : `must be an IANA time zone such as Europe/Berlin or UTC, got ${JSON.stringify(value)} (the names: Intl.supportedValuesOf('timeZone'))`,
  text: (value: string) => (value.trim() === '' ? 'must not be empty' : null),
} satisfies Record<string, Rule>;

const company: CliOption = { type: 'string', value: '<companyId>', description: 'the company (cmp_...)' };

export const COMMANDS: Record<string, Command> = {
  'companies:create': {
    summary: 'creates a company',
    options: {
      name: { type: 'string', value: '<name>', required: true, description: 'its display name' },
      timezone: { type: 'string', value: '<tz>', description: 'an IANA time zone, e.g. Europe/Berlin (default UTC)' },
      plan: { type: 'string', value: '<plan>', description: 'its plan (default free)' },
    },
    rules: { name: RULES.text, timezone: RULES.timezone, plan: RULES.text },
    async run({ store }, v) {
      const company = await createCompany(store, {
        name: required(v, 'name'),
        ...(typeof v.timezone === 'string' ? { timezone: ianaTimeZone(v.timezone.trim())! } : {}),
        ...(typeof v.plan === 'string' ? { plan: v.plan } : {}),
      });
      return { companyId: company.id, name: company.name };
    },
  },
  'companies:list': {
    summary: 'lists the companies, oldest first',
    options: {},
    async run({ store }) {
      const companies = await store.companies.find({}, { sort: { createdOn: 1 } });
      return companies.map((c) => ({ companyId: c.id, name: c.name, memberCount: c.memberCount }));
    },
  },
  'members:add': {
    summary: 'adds a member to a company',
    options: {
      company: { ...company, required: true },
      email: { type: 'string', value: '<email>', required: true, description: 'their email address' },
      name: { type: 'string', value: '<name>', required: true, description: 'their name' },
      role: { type: 'string', value: 'owner|admin|member', description: 'their role (default member)' },
    },
    rules: { company: RULES.company, email: RULES.email, name: RULES.text, role: RULES.role },
    async run({ store }, v) {
      const role = (v.role ?? 'member') as string;
      const email = required(v, 'email');
      const member = await addMember(store, required(v, 'company'), { email, name: required(v, 'name'), role: role as MemberRole });
      return { userId: member.userId, companyId: member.companyId, email: member.email, role: member.role };
    },
  },
  'members:list': {
    summary: "lists a company's members",
    options: { company: { ...company, required: true } },
    rules: { company: RULES.company },
    async run({ store }, v) {
      const members = await store.members.find({ companyId: required(v, 'company') }, { sort: { createdOn: 1 } });
      return members.map((m) => ({ userId: m.userId, name: m.name, email: m.email, role: m.role }));
    },
  },
  'keys:create': {
    summary: 'issues an API key for a member (shown once)',
    options: {
      company: { ...company, required: true },
      email: { type: 'string', value: '<member email>', required: true, description: 'the member the key acts as' },
      name: { type: 'string', value: '<label>', description: 'a label for the key (default admin)' },
    },
    rules: { company: RULES.company, email: RULES.email, name: RULES.text },
    async run({ store }, v) {
      const companyId = required(v, 'company');
      const email = required(v, 'email').toLowerCase();
      const member = await store.members.findOne({ companyId, email });
      if (!member) throw GatewayError.of('NOT_FOUND', `${email} is not a member of company ${companyId}`);
      const label = typeof v.name === 'string' ? v.name : 'admin';
      const { key, record } = await issueApiKey(store, { companyId, userId: member.userId }, label);
      return { apiKeyId: record.id, key, note: 'shown once: the gateway keeps only its hash' };
    },
  },
  'keys:list': {
    summary: 'lists API keys (never the keys themselves)',
    options: { company: { ...company, description: "only this company's keys" } },
    rules: { company: RULES.company },
    async run({ store }, v) {
      const filter = typeof v.company === 'string' ? { companyId: v.company } : {};
      const keys = await store.apiKeys.find(filter, { sort: { createdOn: 1 } });
      return keys.map((k) => ({
        apiKeyId: k.id,
        companyId: k.companyId,
        userId: k.userId,
        name: k.name,
        prefix: k.prefix,
        createdOn: k.createdOn.toISOString(),
        revokedOn: k.revokedOn ? k.revokedOn.toISOString() : null,
      }));
    },
  },
  'keys:revoke': {
    summary: 'revokes an API key',
    options: {},
    positionals: [{ name: '<apiKeyId>', description: 'the key (key_...), as keys:list shows it' }],
    rules: { '<apiKeyId>': idRule('key', 'an API key') },
    async run({ store }, _v, positionals) {
      const id = positionals[0]!;
      const revoked = await store.apiKeys.updateOne({ id, revokedOn: null }, { $set: { revokedOn: new Date() } });
      if (!revoked) {
        const exists = await store.apiKeys.findOne({ id });
        throw GatewayError.of('NOT_FOUND', exists ? `API key ${id} is already revoked` : `API key ${id} does not exist`);
      }
      return { apiKeyId: id, revoked: true };
    },
  },
  'credentials:reencrypt': {
    summary: 're-seals every stored secret with the newest ENCRYPTION_KEY',
    usesEncryptionKeys: true,
    options: {},
    async run({ store, keyring }) {
      const report = await reencryptAll(store, keyring);
      return {
        ...Object.fromEntries(Object.entries(report.reencrypted).map(([name, n]) => [`reencrypted.${name}`, n])),
        alreadyCurrent: report.current,
        skippedChangedMeanwhile: report.skipped,
        unreadable: report.unreadable.length ? report.unreadable.map((u) => u.reason).join('; ') : null,
        newestKey: keyring.current.id,
      };
    },
  },
  'signing-keys:rotate': {
    summary: 'creates a new signing key for end-user tokens; older ones keep verifying until retired',
    usesEncryptionKeys: true,
    options: {},
    async run({ store, keyring }) {
      const key = await createSigningKey(store, keyring);
      return { kid: key.id, status: 'signing', note: 'older keys keep verifying until retired (signing-keys:retire <kid>)' };
    },
  },
  'signing-keys:list': {
    summary: 'lists the signing keys and their status',
    options: {},
    async run({ store }) {
      return await listSigningKeys(store);
    },
  },
  'signing-keys:retire': {
    summary: 'retires a signing key: tokens it signed are refused from then on',
    options: {},
    positionals: [{ name: '<kid>', description: 'the key (sig_...), as signing-keys:list shows it' }],
    rules: { '<kid>': idRule('sig', 'a signing key') },
    async run({ store }, _v, positionals) {
      const kid = positionals[0]!;
      await retireSigningKey(store, kid);
      return { kid, retired: true, note: 'tokens it signed are refused from now on' };
    },
  },
};

const JSON_OPTION: CliOption = { type: 'boolean', description: 'print the result as JSON' };

/** A command's line as the shared parser reads it: its options and --json. */
function declaration(name: string, command: Command): CliDeclaration {
  return {
    command: `npm run admin -- ${name}`,
    summary: `${name}: ${command.summary}.`,
    options: { ...command.options, json: JSON_OPTION },
    ...(command.positionals ? { positionals: command.positionals } : {}),
  };
}

/** The command that copies the embedded store into PostgreSQL (scripts/store-copy.ts). */
export const STORE_COPY_COMMAND = 'store:copy-to-postgres';

/** The tool's own help: every command with its usage and what it does. */
export function adminUsage(): string {
  const tool = asInvoked('npm run admin --');
  return [
    `usage: ${tool} <command> [options] [--json]`,
    '',
    `Runs an administrative command on the store, or through the running gateway (embedded store). \`${tool} <command> --help\` shows its options.`,
    '',
    'commands:',
    ...Object.entries(COMMANDS).flatMap(([name, command]) => [`  ${usageLine(declaration(name, command)).slice(`usage: ${tool} `.length)}`, `      ${command.summary}`]),
    `  ${STORE_COPY_COMMAND}`,
    "      Copies the embedded store of DATA_DIR into DATABASE_URL's PostgreSQL database (the gateway stopped; see its --help)",
    '',
    'options:',
    '  --json      print the result as JSON',
    '  -h, --help  show this help',
    '',
  ].join('\n');
}

type Parsed = { name: string; command: Command; values: Record<string, string | boolean | undefined>; positionals: string[] };

/**
 * The command line read and checked, without the store: help (exit 0), a
 * refusal naming the option and the rule (exit 2), or the command to run.
 * The tool answers the first two before it opens the store or asks the gateway.
 */
export function parseAdminCommand(argv: readonly string[]): AdminResult | Parsed {
  const [name, ...rest] = argv;
  // No command is a usage error (exit 2, the usage on stderr), as a missing argument is for every tool; help asked for is 0.
  if (name === undefined) return { exitCode: 2, output: `missing <command>\n\n${adminUsage()}` };
  if (name === 'help' || argv.includes('--help') || argv.includes('-h')) {
    if (!Object.hasOwn(COMMANDS, name)) return { exitCode: 0, output: adminUsage() };
  }
  if (name.startsWith('-')) return { exitCode: 2, output: `unknown option ${name.replace(/=.*$/, '')}\n${adminUsage().split('\n')[0]}` };
  // Copying a whole store takes two stores: scripts/admin.ts runs it itself (scripts/store-copy.ts); it takes no options.
  if (name === STORE_COPY_COMMAND) {
    const extra = rest.find((a) => a !== '--help' && a !== '-h');
    return extra === undefined ? { exitCode: 0, output: `usage: npm run admin -- ${STORE_COPY_COMMAND}` } : { exitCode: 2, output: `${STORE_COPY_COMMAND} takes no options or arguments (got ${extra})` };
  }
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) return { exitCode: 2, output: `unknown command "${name}"\n\n${adminUsage()}` };
  const line = declaration(name, command);
  const outcome = parseCommandLine(line, rest);
  if (outcome.kind === 'help') return { exitCode: 0, output: outcome.text };
  if (outcome.kind === 'refused') return { exitCode: 2, output: outcome.text };
  const named: [string, string | boolean | undefined][] = [
    ...Object.entries(outcome.values).map(([option, value]): [string, string | boolean | undefined] => [`--${option}`, value]),
    ...(command.positionals ?? []).map((p, i): [string, string | undefined] => [p.name, outcome.positionals[i]]),
  ];
  for (const [shown, value] of named) {
    const rule = command.rules?.[shown.replace(/^--/, '')];
    const broken = typeof value === 'string' && rule ? rule(value.trim()) : null;
    if (broken) return { exitCode: 2, output: `${shown} ${broken}\n${usageLine(line)}` };
  }
  return { name, command, values: outcome.values, positionals: outcome.positionals };
}

export async function runAdminCommand(context: AdminContext, argv: string[]): Promise<AdminResult> {
  const parsed = parseAdminCommand(argv);
  if ('exitCode' in parsed) return parsed;
  const { name, command, values, positionals } = parsed;
  try {
    const result = await command.run(context, values, positionals);
    return { exitCode: 0, output: values.json ? JSON.stringify(result, null, 2) : render(result) };
  } catch (error) {
    if (error instanceof UsageError) return { exitCode: 2, output: `${error.message}\n${usageLine(declaration(name, command))}` };
    if (error instanceof GatewayError) return { exitCode: 1, output: `error: ${error.message}` };
    throw error;
  }
}

class UsageError extends Error {}

function required(values: Record<string, string | boolean | undefined>, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${name} is required`);
  return value.trim();
}

function render(result: unknown): string {
  const rows = Array.isArray(result) ? result : [result];
  if (rows.length === 0) return '(none)';
  return rows
    .map((row) =>
      Object.entries(row as Record<string, unknown>)
        .map(([k, v]) => `${k}: ${v === null ? '-' : String(v)}`)
        .join('\n'),
    )
    .join('\n\n');
}

import { parseArgs } from 'node:util';
import { issueApiKey } from '../auth/api-keys.ts';
import { addMember, createCompany } from '../companies/companies.ts';
import { GatewayError } from '../errors/index.ts';
import type { Keyring } from '../credentials/keyring.ts';
import { reencryptAll } from '../credentials/reencrypt.ts';
import type { MemberRole, Store } from '../store/index.ts';
import { createSigningKey, listSigningKeys, retireSigningKey } from '../tokens/signing-keys.ts';

export interface AdminResult {
  exitCode: number;
  output: string;
}

interface Command {
  usage: string;
  /** Seals or re-seals secrets with the keyring: through a running gateway, only when the tool's keys are the gateway's. */
  usesEncryptionKeys?: true;
  options: Record<string, { type: 'string' | 'boolean' }>;
  run(context: AdminContext, values: Record<string, string | boolean | undefined>, positionals: string[]): Promise<unknown>;
}

/** What a command works on: the store, and the keys that seal secrets in it. */
export interface AdminContext {
  store: Store;
  keyring: Keyring;
}

/**
 * The admin tool's commands. Each returns plain data: printed as readable
 * lines, or as JSON with --json. The same functions run in the CLI process
 * (store opened directly) and inside a running gateway (over its admin socket).
 */
export const COMMANDS: Record<string, Command> = {
  'companies:create': {
    usage: 'companies:create --name <name> [--timezone <tz>] [--plan <plan>]',
    options: { name: { type: 'string' }, timezone: { type: 'string' }, plan: { type: 'string' } },
    async run({ store }, v) {
      const company = await createCompany(store, {
        name: required(v, 'name'),
        ...(typeof v.timezone === 'string' ? { timezone: v.timezone } : {}),
        ...(typeof v.plan === 'string' ? { plan: v.plan } : {}),
      });
      return { companyId: company.id, name: company.name };
    },
  },
  'companies:list': {
    usage: 'companies:list',
    options: {},
    async run({ store }) {
      const companies = await store.companies.find({}, { sort: { createdOn: 1 } });
      return companies.map((c) => ({ companyId: c.id, name: c.name, memberCount: c.memberCount }));
    },
  },
  'members:add': {
    usage: 'members:add --company <companyId> --email <email> --name <name> [--role owner|admin|member]',
    options: { company: { type: 'string' }, email: { type: 'string' }, name: { type: 'string' }, role: { type: 'string' } },
    async run({ store }, v) {
      const role = (v.role ?? 'member') as string;
      if (!['owner', 'admin', 'member'].includes(role)) throw usageError('--role must be owner, admin or member');
      const email = required(v, 'email');
      if (!/^[^@\s]+@[^@\s]+$/.test(email)) throw usageError('--email must be an email address');
      const member = await addMember(store, required(v, 'company'), { email, name: required(v, 'name'), role: role as MemberRole });
      return { userId: member.userId, companyId: member.companyId, email: member.email, role: member.role };
    },
  },
  'members:list': {
    usage: 'members:list --company <companyId>',
    options: { company: { type: 'string' } },
    async run({ store }, v) {
      const members = await store.members.find({ companyId: required(v, 'company') }, { sort: { createdOn: 1 } });
      return members.map((m) => ({ userId: m.userId, name: m.name, email: m.email, role: m.role }));
    },
  },
  'keys:create': {
    usage: 'keys:create --company <companyId> --email <member email> [--name <label>]',
    options: { company: { type: 'string' }, email: { type: 'string' }, name: { type: 'string' } },
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
    usage: 'keys:list [--company <companyId>]',
    options: { company: { type: 'string' } },
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
    usage: 'keys:revoke <apiKeyId>',
    options: {},
    async run({ store }, _v, positionals) {
      const id = positionals[0];
      if (!id) throw usageError('name the key to revoke: keys:revoke <apiKeyId>');
      const revoked = await store.apiKeys.updateOne({ id, revokedOn: null }, { $set: { revokedOn: new Date() } });
      if (!revoked) {
        const exists = await store.apiKeys.findOne({ id });
        throw GatewayError.of('NOT_FOUND', exists ? `API key ${id} is already revoked` : `API key ${id} does not exist`);
      }
      return { apiKeyId: id, revoked: true };
    },
  },
  'credentials:reencrypt': {
    usage: 'credentials:reencrypt',
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
    usage: 'signing-keys:rotate',
    usesEncryptionKeys: true,
    options: {},
    async run({ store, keyring }) {
      const key = await createSigningKey(store, keyring);
      return { kid: key.id, status: 'signing', note: 'older keys keep verifying until retired (signing-keys:retire <kid>)' };
    },
  },
  'signing-keys:list': {
    usage: 'signing-keys:list',
    options: {},
    async run({ store }) {
      return await listSigningKeys(store);
    },
  },
  'signing-keys:retire': {
    usage: 'signing-keys:retire <kid>',
    options: {},
    async run({ store }, _v, positionals) {
      const kid = positionals[0];
      if (!kid) throw usageError('name the key to retire: signing-keys:retire <kid>');
      await retireSigningKey(store, kid);
      return { kid, retired: true, note: 'tokens it signed are refused from now on' };
    },
  },
};

export function adminUsage(): string {
  return ['usage: npm run admin -- <command> [options] [--json]', '', 'commands:', ...Object.values(COMMANDS).map((c) => `  ${c.usage}`)].join('\n');
}

export async function runAdminCommand(context: AdminContext, argv: string[]): Promise<AdminResult> {
  const [name, ...rest] = argv;
  const command = name ? COMMANDS[name] : undefined;
  if (!command) {
    return { exitCode: name && name !== 'help' ? 2 : 0, output: (name && name !== 'help' ? `unknown command "${name}"\n\n` : '') + adminUsage() };
  }
  let parsed;
  try {
    parsed = parseArgs({ args: rest, options: { ...command.options, json: { type: 'boolean' } }, allowPositionals: true, strict: true });
  } catch (error) {
    return { exitCode: 2, output: `${(error as Error).message}\nusage: npm run admin -- ${command.usage}` };
  }
  try {
    const result = await command.run(context, parsed.values, parsed.positionals);
    return { exitCode: 0, output: parsed.values.json ? JSON.stringify(result, null, 2) : render(result) };
  } catch (error) {
    if (error instanceof UsageError) return { exitCode: 2, output: `${error.message}\nusage: npm run admin -- ${command.usage}` };
    if (error instanceof GatewayError) return { exitCode: 1, output: `error: ${error.message}` };
    throw error;
  }
}

class UsageError extends Error {}

function usageError(message: string): UsageError {
  return new UsageError(message);
}

function required(values: Record<string, string | boolean | undefined>, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value.trim() === '') throw usageError(`--${name} is required`);
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

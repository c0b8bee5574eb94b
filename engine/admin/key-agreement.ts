import type { Keyring } from '../platform/crypto/keyring.ts';

/**
 * A command the running gateway carries out uses the gateway's keyring, not
 * the tool's. For a command that seals or re-seals secrets, a difference
 * would silently do something else than asked (`credentials:reencrypt` with
 * ENCRYPTION_KEY="new,old" re-sealing under the gateway's old key, then
 * reporting the old key as newest), so it is refused. The key lists are
 * compared by key id (the first 8 bytes of each key's SHA-256), in order,
 * and only ids are ever named.
 */
export function keyMismatch(gateway: Keyring, toolKeyIds: readonly string[] | undefined): string | null {
  const gatewayIds = [...gateway.byId.keys()];
  const tool = toolKeyIds ?? [];
  if (tool.length === gatewayIds.length && tool.every((id, i) => id === gatewayIds[i])) return null;
  const list = (ids: readonly string[]) => (ids.length ? ids.join(', ') : 'none');
  return [
    `error: this tool's ENCRYPTION_KEY differs from the running gateway's (key ids, newest first: this tool: ${list(tool)}; gateway: ${list(gatewayIds)}).`,
    'The running gateway carries out the command with its own keys, so it would not use yours; nothing was done.',
    'Restart the gateway with the keys you mean first (README: rotating ENCRYPTION_KEY), or run the tool with the same ENCRYPTION_KEY as the gateway.',
  ].join('\n');
}

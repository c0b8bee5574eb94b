import type { Migration } from 'kysely';
import { initial } from './0001-initial.ts';
import { renewalLease } from './0002-renewal-lease.ts';
import { proxyAndChoices } from './0003-proxy-and-choices.ts';
import { accountLabel } from './0004-account-label.ts';

/** Every schema migration, in order: names sort in the order they run. Only ever appended to. */
export const MIGRATIONS: Readonly<Record<string, Migration>> = {
  '0001-initial': initial,
  '0002-renewal-lease': renewalLease,
  '0003-proxy-and-choices': proxyAndChoices,
  '0004-account-label': accountLabel,
};

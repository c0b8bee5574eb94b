import fs from 'node:fs/promises';
import path from 'node:path';
import type { AppVersion, DefinitionsSnapshot } from '../core/definitions/snapshot.ts';
import { checkAgainstDescription, type DescriptionMismatch } from './description-check.ts';
import { describedOperations } from './openapi-operations.ts';

/** Where the trimmed descriptions are kept: <dir>/<app slug>/openapi.json, with SOURCE.md (where from, which commit, the licence). */
export const DESCRIPTIONS_DIR = 'spec/fixtures/descriptions';

/**
 * Where the provider's description is wrong or silent and the action is right: one entry per mismatch
 * let pass, in allowances.json beside the copy, each with the provider's page that says otherwise.
 */
export interface Allowance {
  action: string;
  /** The start of the mismatch's problem text. */
  problem: string;
  reason: string;
}

export interface KeptDescription {
  document: Record<string, any>;
  allowances: Allowance[];
}

/** Each app with a kept description, by slug. */
export async function readDescriptions(dir: string): Promise<Map<string, KeptDescription>> {
  const found = new Map<string, KeptDescription>();
  const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries.filter((e) => e.isDirectory()).sort((a, b) => a.name.localeCompare(b.name))) {
    const text = await fs.readFile(path.join(dir, entry.name, 'openapi.json'), 'utf8').catch(() => null);
    if (text === null) continue;
    const allowances = await fs.readFile(path.join(dir, entry.name, 'allowances.json'), 'utf8').then((t) => JSON.parse(t) as Allowance[], () => []);
    found.set(entry.name, { document: JSON.parse(text) as Record<string, any>, allowances });
  }
  return found;
}

/** The version a description is held to: the published one, else the draft. */
export function heldVersion(snapshot: DefinitionsSnapshot, slug: string): AppVersion | undefined {
  const app = snapshot.appsBySlug.get(slug);
  if (!app) return undefined;
  return app.published !== undefined ? app.versions.get(app.published) : app.draft;
}

export interface DescriptionOutcome {
  app: string;
  /** How many actions were held to it. */
  actions: number;
  mismatches: DescriptionMismatch[];
  /** How many mismatches an allowance let pass. */
  allowed: number;
  /** Allowances that matched nothing (stale: the action changed, remove them). */
  unusedAllowances: Allowance[];
}

/** Every kept description checked against its app; an app the snapshot lacks is one mismatch. */
export function checkDescriptions(snapshot: DefinitionsSnapshot, descriptions: Map<string, KeptDescription>): DescriptionOutcome[] {
  return [...descriptions].map(([slug, kept]) => {
    const version = heldVersion(snapshot, slug);
    if (!version) return { app: slug, actions: 0, mismatches: [{ app: slug, action: '-', problem: `a description is kept for ${slug}, but no app has that slug` }], allowed: 0, unusedAllowances: [] };
    const all = checkAgainstDescription(version, describedOperations(kept.document));
    const used = new Set<Allowance>();
    const mismatches = all.filter((m) => {
      const allowance = kept.allowances.find((a) => a.action === m.action && m.problem.startsWith(a.problem));
      if (allowance) used.add(allowance);
      return !allowance;
    });
    return { app: slug, actions: version.actions.size, mismatches, allowed: all.length - mismatches.length, unusedAllowances: kept.allowances.filter((a) => !used.has(a)) };
  });
}

/** One line per mismatch: `app slack, action post-message: ...`. */
export const formatMismatch = (m: DescriptionMismatch) => `app ${m.app}, action ${m.action}: ${m.problem}`;

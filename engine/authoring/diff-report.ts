import { SEVERITIES, type DefinitionChange, type Severity } from './definition-change.ts';

export interface DiffSummary {
  breaking: number;
  noted: number;
  compatible: number;
  /** Breaking changes in released definitions (numbered versions, the app itself): these fail the review. */
  breakingReleased: number;
}

export function summarise(changes: readonly DefinitionChange[]): DiffSummary {
  const count = (severity: Severity) => changes.filter((c) => c.severity === severity).length;
  return {
    breaking: count('breaking'),
    noted: count('noted'),
    compatible: count('compatible'),
    breakingReleased: changes.filter((c) => c.severity === 'breaking' && c.released).length,
  };
}

/** `npm run diff -- --json`: the same changes for tools. */
export function diffJson(base: string, head: string, changes: readonly DefinitionChange[]): string {
  return `${JSON.stringify({ base, head, summary: summarise(changes), changes }, null, 2)}\n`;
}

const BADGE: Record<Severity, string> = { breaking: '**breaking**', noted: 'noted', compatible: 'compatible' };

/**
 * A pull-request comment: a summary line, then one section per app version
 * (the app itself first, then a published move), breaking changes first in
 * each, and a table of the changes with where they are and what changed.
 */
export function diffMarkdown(base: string, head: string, changes: readonly DefinitionChange[]): string {
  const s = summarise(changes);
  const lines = [`## Definition changes: \`${base}\` → \`${head}\``, ''];
  if (!changes.length) return `${lines.join('\n')}\nNo changes in meaning.\n`;
  const verdict = s.breakingReleased
    ? `${s.breakingReleased} breaking in released versions`
    : s.breaking
      ? 'breaking only in draft, which never fails'
      : 'nothing breaking';
  lines.push(`**${s.breaking} breaking, ${s.noted} noted, ${s.compatible} compatible** (${verdict}).`, '');
  const groups = new Map<string, DefinitionChange[]>();
  for (const change of changes) {
    groups.set(title(change), [...(groups.get(title(change)) ?? []), change]);
  }
  for (const [title, group] of groups) {
    lines.push(`### ${title}`, '', '| | Where | Change |', '|---|---|---|');
    for (const severity of SEVERITIES) {
      for (const c of group.filter((g) => g.severity === severity)) lines.push(`| ${BADGE[severity]} | ${cell(c.where)} | ${cell(c.what)} |`);
    }
    lines.push('');
  }
  return `${lines.join('\n')}`;
}

/** The section of a change: the app itself, a published move, two versions compared, or one version on both sides. */
function title(change: DefinitionChange): string {
  if (change.version === null) return change.app;
  if (change.publishedMove) return `${change.app} · published ${change.from} → ${change.version}`;
  if (change.from !== undefined) return `${change.app} · version ${change.from} → ${change.version}`;
  return `${change.app} · version ${change.version}${change.version === 'draft' ? '' : ' (released)'}`;
}

/** Table cells hold one line, and a pipe would end the cell. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

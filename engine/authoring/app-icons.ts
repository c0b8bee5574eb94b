import fs from 'node:fs/promises';
import path from 'node:path';
import { ICON_FILE, isPlainSvg, monogramSvg } from '../core/describe/app-icon.ts';
import type { AppEntry, DefinitionsSnapshot } from '../core/definitions/snapshot.ts';

/**
 * The brands simple-icons (https://simpleicons.org, CC0-1.0) has, by app
 * slug: the icon's simple-icons slug. An app not listed gets a monogram of
 * its name. simple-icons drops brands whose owners ask it to (Salesforce,
 * Slack, Twilio, Microsoft's...), so those are monograms on purpose.
 */
export const SIMPLE_ICONS: Readonly<Record<string, string>> = {
  airtable: 'airtable',
  asana: 'asana',
  bigcommerce: 'bigcommerce',
  bitbucket: 'bitbucket',
  box: 'box',
  brevo: 'brevo',
  calendly: 'calendly',
  clickup: 'clickup',
  confluence: 'confluence',
  discord: 'discord',
  dropbox: 'dropbox',
  github: 'github',
  gitlab: 'gitlab',
  gmail: 'gmail',
  'google-calendar': 'googlecalendar',
  'google-drive': 'googledrive',
  'google-sheets': 'googlesheets',
  greenhouse: 'greenhouse',
  gusto: 'gusto',
  'help-scout': 'helpscout',
  hubspot: 'hubspot',
  intercom: 'intercom',
  jira: 'jira',
  linear: 'linear',
  mailchimp: 'mailchimp',
  mailgun: 'mailgun',
  notion: 'notion',
  pagerduty: 'pagerduty',
  paypal: 'paypal',
  personio: 'personio',
  quickbooks: 'quickbooks',
  sentry: 'sentry',
  shopify: 'shopify',
  square: 'square',
  stripe: 'stripe',
  todoist: 'todoist',
  trello: 'trello',
  typeform: 'typeform',
  woocommerce: 'woocommerce',
  xero: 'xero',
  zendesk: 'zendesk',
  'zoho-crm': 'zoho',
  zoom: 'zoom',
};

/** What simple-icons gives for one brand (the fields used). */
export interface BrandIcon {
  slug: string;
  title: string;
  hex: string;
  svg: string;
  guidelines?: string;
}

/** The installed simple-icons package: its version and its icons by slug. */
export async function loadSimpleIcons(): Promise<{ version: string; bySlug: Map<string, BrandIcon> }> {
  const icons = (await import('simple-icons')) as unknown as Record<string, BrandIcon | undefined>;
  const manifest = await fs.readFile(path.join(path.dirname(new URL(import.meta.resolve('simple-icons')).pathname), 'package.json'), 'utf8');
  const bySlug = new Map<string, BrandIcon>();
  for (const icon of Object.values(icons)) if (icon && typeof icon === 'object' && typeof icon.slug === 'string') bySlug.set(icon.slug, icon);
  return { version: (JSON.parse(manifest) as { version: string }).version, bySlug };
}

/**
 * The icon.svg an app folder should hold: the brand's simple-icons path in
 * its brand colour, with a comment naming the source and its licence, or
 * the monogram of the app's name. Throws when a listed slug is not in the
 * installed simple-icons (a version that dropped the brand).
 */
export function expectedIcon(app: AppEntry, simpleIcons: { version: string; bySlug: Map<string, BrandIcon> }): { svg: string; source: string } {
  const slug = SIMPLE_ICONS[app.slug];
  if (!slug) return { svg: monogramSvg(app.name), source: 'monogram' };
  const brand = simpleIcons.bySlug.get(slug);
  if (!brand) throw new Error(`app ${app.slug}: simple-icons ${simpleIcons.version} has no icon "${slug}" (remove it from SIMPLE_ICONS for a monogram)`);
  const comment = `<!-- ${brand.title} icon from simple-icons ${simpleIcons.version} (https://simpleicons.org, "${slug}"), CC0-1.0; the brand is its owner's${brand.guidelines ? `: ${brand.guidelines}` : ''} -->`;
  const svg = `${comment}\n${brand.svg.replace(/^<svg /, `<svg fill="#${brand.hex}" `)}\n`;
  if (!isPlainSvg(svg)) throw new Error(`app ${app.slug}: the simple-icons "${slug}" icon is not a plain SVG`);
  return { svg, source: `simple-icons ${slug}` };
}

/** Each app's folder (relative to the definitions folder): where its icon.svg goes. */
export function appFolder(app: AppEntry): string {
  return app.file.split('/')[0]!;
}

export interface IconOutcome {
  app: string;
  file: string;
  source: string;
  state: 'current' | 'written' | 'stale';
}

/** Writes (or, with `write: false`, only compares) every app's icon.svg; one outcome per app, by slug. */
export async function syncIcons(dir: string, snapshot: DefinitionsSnapshot, options: { write: boolean }): Promise<IconOutcome[]> {
  const simpleIcons = await loadSimpleIcons();
  const outcomes: IconOutcome[] = [];
  for (const app of [...snapshot.apps.values()].sort((a, b) => a.slug.localeCompare(b.slug))) {
    const { svg, source } = expectedIcon(app, simpleIcons);
    const file = path.join(dir, appFolder(app), ICON_FILE);
    const written = await fs.readFile(file, 'utf8').catch(() => null);
    let state: IconOutcome['state'] = 'current';
    if (written !== svg) {
      state = options.write ? 'written' : 'stale';
      if (options.write) await fs.writeFile(file, svg);
    }
    outcomes.push({ app: app.slug, file, source, state });
  }
  return outcomes;
}

/**
 * A company's time zone: an IANA zone name (Europe/Berlin, UTC) that this
 * Node's ICU knows, in its usual spelling (europe/berlin is Europe/Berlin);
 * null for anything else (a misspelt zone, an offset such as +01:00, an
 * abbreviation ICU does not take such as CEST). Intl.supportedValuesOf
 * ('timeZone') lists the canonical zones but leaves out aliases such as UTC,
 * so whether a name is a zone is what Intl.DateTimeFormat accepts.
 */
export function ianaTimeZone(name: string): string | null {
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/.test(name)) return null;
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat('en', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
  const lower = name.toLowerCase();
  // ICU's canonical name of an alias can be another zone's (America/Argentina/Buenos_Aires is America/Buenos_Aires): kept as written.
  return ZONES().find((zone) => zone.toLowerCase() === lower) ?? (resolved.toLowerCase() === lower ? resolved : name);
}

let zones: string[] | undefined;
const ZONES = () => (zones ??= Intl.supportedValuesOf('timeZone'));

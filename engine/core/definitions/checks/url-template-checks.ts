import { urlTemplateParts } from '../../arguments/url-template.ts';
import type { FileAnalysis } from '../file-analysis.ts';
import type { DefinitionPath } from '../parsed-file.ts';
import { problemAt, type DefinitionProblem } from '../problems.ts';

const PLACEHOLDER = /\{\{\s*([^{}\s]+)\s*\}\}/g;
/** After the last placeholder of a host: the rest of its label, then a fixed domain of two labels or more, and an optional literal port. */
const FIXED_DOMAIN_AFTER = /^[A-Za-z0-9-]*(\.[A-Za-z0-9-]+){2,}\.?(:\d+)?$/;

/**
 * A URL template's variables may not choose where the request goes. In the
 * authority a placeholder may only fill (part of) host labels in front of a
 * fixed domain of at least two labels (`https://{{subdomain}}.zendesk.com`),
 * each filled at run time with one label, never a dot: the request stays
 * under that domain. Not in the user info, the port, the domain itself or the
 * whole host. A template may open with a placeholder that is the whole
 * origin (`{{metadata.exchangeOrigin}}/exchange`) only when the file
 * declares it in originVariables; its value is then checked as an origin and
 * the egress policy judges where it leads.
 */
export function urlTemplateProblems(file: FileAnalysis, path: DefinitionPath, template: string, originVariables: readonly string[]): DefinitionProblem[] {
  const where = path.join('.');
  const refuse = (name: string, why: string) => [problemAt(file.parsed!.locate(path), 'URL_VARIABLE_IN_AUTHORITY', `${where}: {{${name}}} ${why}`)];
  const parts = urlTemplateParts(template);
  if (parts.leading !== null) {
    if (originVariables.includes(parts.leading)) return [];
    return refuse(parts.leading, 'opens the URL, so its value would choose the whole origin: write the scheme and host, or declare it in originVariables');
  }
  if (!parts.authority) return [];
  const authority = template.slice(parts.authority.start, parts.authority.end);
  const found = [...authority.matchAll(PLACEHOLDER)];
  if (found.length === 0) {
    // https://user:secret@host: the client drops the user info without a word, so the call goes without them.
    if (authority.includes('@')) return [problemAt(file.parsed!.locate(path), 'SCHEMA_PATTERN', `${where}: a URL must not carry a user name or password (they would be dropped, not sent): credentials belong in an auth`)];
    return [];
  }
  const last = found.at(-1)!;
  const beforeLast = authority.slice(0, last.index);
  const afterLast = authority.slice(last.index + last[0].length);
  if (authority.includes('@') || beforeLast.includes(':') || !FIXED_DOMAIN_AFTER.test(afterLast)) {
    return refuse(
      last[1]!,
      'is in the host or port and could send the request elsewhere: a variable may only fill host labels in front of a fixed domain of two labels or more (https://{{tenant}}.example.com), or, declared in originVariables, open the URL as {{name}}/path',
    );
  }
  return [];
}

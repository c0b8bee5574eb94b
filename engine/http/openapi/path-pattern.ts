/**
 * The request paths a documented path template matches: each `{name}` one
 * segment, except a last `{path}`, which is the rest of the path, slashes
 * included (the proxy's /v2/proxy/{connectionId}/{path}: OpenAPI has no
 * syntax for a parameter spanning segments, so its description says so).
 *
 * The expressions are matched against a caller's request path, so their cost
 * is held to one pass: a parameter must be a whole segment, so every `[^/]+`
 * ends at a literal `/` or at the end and backtracking cannot multiply (two
 * parameters in one segment, or a parameter beside text, would make a failing
 * match quadratic). A template that breaks this is refused when the
 * expression is built, which is at start, from the gateway's own endpoint lists.
 */
export function templatePattern(template: string): RegExp {
  return new RegExp(`^${templateSource(template)}$`);
}

/**
 * Any of these templates, as one expression anchored once (`^(?:a|b|…)$`):
 * tried at the path's start only, each alternative in one pass.
 */
export function anyTemplatePattern(templates: readonly string[]): RegExp {
  return templates.length === 0 ? /(?!)/ : new RegExp(`^(?:${templates.map(templateSource).join('|')})$`);
}

function templateSource(template: string): string {
  const segments = template.split('/');
  const broken = segments.some((segment, i) => segment.includes('{') && (!/^\{[^{}/]+\}$/.test(segment) || (segment === '{path}' && i !== segments.length - 1)));
  if (broken) throw new Error(`path template ${template}: a parameter must be a whole segment (and {path} the last one)`);
  return segments
    .map((segment, i) => (segment === '{path}' && i === segments.length - 1 ? '.+' : segment.startsWith('{') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
}

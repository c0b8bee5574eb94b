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

/**
 * The request paths the router routes to this template's route: as templatePattern, in any letter case and with
 * one trailing slash or none, as @koa/router matches a path (path-to-regexp with `sensitive: false` and
 * `trailing: true`: the flag `i`, then `(?:/$)?`). A fixed segment is compared as sent, escapes not decoded
 * (`/v2/end-user/%61pps` is routed nowhere), while a parameter is any segment, decoded afterwards. What decides
 * anything about a path the router will route (which paths are open to browsers) must use this, not
 * templatePattern: else `/V2/END-USER/APPS` is served and yet not the end-user endpoint it is.
 */
export function routedPattern(template: string): RegExp {
  return new RegExp(`^${templateSource(template)}/?$`, 'i');
}

/** Any of these templates as routedPattern has each, in one expression anchored once. */
export function anyRoutedPattern(templates: readonly string[]): RegExp {
  return templates.length === 0 ? /(?!)/ : new RegExp(`^(?:${templates.map(templateSource).join('|')})/?$`, 'i');
}

function templateSource(template: string): string {
  const segments = template.split('/');
  const broken = segments.some((segment, i) => segment.includes('{') && (!/^\{[^{}/]+\}$/.test(segment) || (segment === '{path}' && i !== segments.length - 1)));
  if (broken) throw new Error(`path template ${template}: a parameter must be a whole segment (and {path} the last one)`);
  return segments
    .map((segment, i) => (segment === '{path}' && i === segments.length - 1 ? '.+' : segment.startsWith('{') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
}

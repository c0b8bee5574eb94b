/**
 * The request paths a documented path template matches: each `{name}` one
 * segment, except a last `{path}`, which is the rest of the path, slashes
 * included (the proxy's /v2/proxy/{connectionId}/{path}: OpenAPI has no
 * syntax for a parameter spanning segments, so its description says so).
 */
export function templatePattern(template: string): RegExp {
  const escaped = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
  return new RegExp(`^${escaped.replace(/\/\{path\}$/, '/.+').replace(/\{[^}]+\}/g, '[^/]+')}$`);
}

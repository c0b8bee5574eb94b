import { expect } from 'chai';
import Router from '@koa/router';
import { anyRoutedPattern, anyTemplatePattern, routedPattern, templatePattern } from '../../../engine/http/openapi/path-pattern.ts';
import { V1_ENDPOINTS } from '../../../engine/http/openapi/v1-endpoints.ts';
import { V2_ENDPOINTS } from '../../../engine/http/openapi/v2-endpoints.ts';

/**
 * The documented path templates as expressions matched against a caller's
 * request path (CORS decides by them). Each parameter is a whole segment, so
 * every `[^/]+` ends at a literal `/` or the end: a match is one pass over
 * the path, whatever the caller sends, and a template that would break that
 * is refused when the expression is built (at start), never at a request.
 */
describe('path templates as expressions (http/openapi/path-pattern.ts)', () => {
  it('matches a parameter as one segment, and a last {path} as the rest, slashes included', () => {
    expect(templatePattern('/v2/connections/{id}').test('/v2/connections/con_1')).to.equal(true);
    expect(templatePattern('/v2/connections/{id}').test('/v2/connections/con_1/x')).to.equal(false);
    expect(templatePattern('/v2/connections/{id}').test('/v2/connections/')).to.equal(false);
    expect(templatePattern('/v2/proxy/{connectionId}/{path}').test('/v2/proxy/con_1/a/b/c')).to.equal(true);
    expect(templatePattern('/v2/proxy/{connectionId}/{path}').test('/v2/proxy/con_1/')).to.equal(false);
    expect(templatePattern('/v1/openapi.json').test('/v1/openapiXjson')).to.equal(false);
  });

  it('refuses a template whose parameter is not a whole segment, naming it (two parameters or a parameter and text in one segment backtrack)', () => {
    for (const template of ['/v2/things/{a}{b}', '/v2/things/{id}.json', '/v2/things/x{id}', '/v2/{path}/things']) {
      expect(() => templatePattern(template), template).to.throw(`path template ${template}: a parameter must be a whole segment (and {path} the last one)`);
    }
  });

  it('builds every documented template, and one anchored expression of them all that agrees with each (as routed too)', () => {
    const templates = [...new Set([...V1_ENDPOINTS, ...V2_ENDPOINTS].map((e) => e.path))];
    const patterns = templates.map(templatePattern);
    const any = anyTemplatePattern(templates);
    expect(any.source.startsWith('^(?:')).to.equal(true);
    const hostile = [
      `/v2/end-user/proxy/${'a'.repeat(16_000)}`,
      `/v2/end-user/proxy/con_1/${'/'.repeat(16_000)}`,
      `/${'v2/'.repeat(4_000)}`,
      `/v2/connections/${'x'.repeat(16_000)}/`,
      ...templates.map((t) => t.replace(/\{[^}]+\}/g, 'x')),
    ];
    for (const path of hostile) expect(any.test(path), path.slice(0, 60)).to.equal(patterns.some((p) => p.test(path)));
    const routed = templates.map(routedPattern);
    const anyRouted = anyRoutedPattern(templates);
    for (const path of hostile) expect(anyRouted.test(path), path.slice(0, 60)).to.equal(routed.some((p) => p.test(path)));
  });

  it("routedPattern takes a path exactly when @koa/router routes it to the template's route: any letter case, one trailing slash, fixed segments not unescaped", () => {
    const templates = [...new Set([...V1_ENDPOINTS, ...V2_ENDPOINTS].map((e) => e.path))];
    const any = anyRoutedPattern(templates);
    for (const template of templates) {
      const router = new Router();
      router.get(template.replace(/\{path\}$/, '*path').replace(/\{([^}]+)\}/g, ':$1'), () => undefined);
      const routed = (path: string) => router.match(path, 'GET').pathAndMethod.length > 0;
      const sample = template.replace(/\{[^}]+\}/g, 'x');
      const forms = [
        sample,
        sample.toUpperCase(),
        `${sample}/`,
        `${sample.toUpperCase()}/`,
        `${sample}//`,
        `${sample}/more`,
        sample.replace('/', '//'),
        sample.replace(/[a-z]/, (letter) => `%${letter.charCodeAt(0).toString(16)}`),
        sample.replace(/\/x(?=\/|$)/, '/x%2Fy'),
        sample.replace(/\/x(?=\/|$)/, '/'),
      ];
      for (const path of forms) {
        expect(routedPattern(template).test(path), `${template}: ${path}`).to.equal(routed(path));
        if (routed(path)) expect(any.test(path), `any: ${path}`).to.equal(true);
      }
    }
  });
});

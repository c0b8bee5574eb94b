import fs from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { parse } from 'yaml';
import { createApp } from '../../engine/authoring/create-app.ts';
import { buildOutboundRequest, evaluateMapperPlainly, fillTemplate, headerText } from '../../engine/arguments/index.ts';
import { loadDefinitions } from '../../engine/definitions/loader.ts';
import { evaluateGuarded, type GuardedExpression } from '../../engine/mapping/index.ts';
import { tempDir } from '../support/definition-fixtures.ts';

interface TestCase {
  name: string;
  connection?: { metadata?: Record<string, unknown>; credentials?: Record<string, unknown> };
  arguments?: Record<string, unknown>;
  request: { method?: string; url?: string; query?: Record<string, string>; headers?: Record<string, string>; body?: unknown };
  response: { status: number; headers?: Record<string, string>; body?: unknown };
  expect: { success?: boolean; data?: unknown[]; meta?: Record<string, unknown> };
}

/**
 * Until `npm run test:definitions` runs them, this checks the scaffold's
 * cases against the engine parts that exist: the request the arguments build
 * and what the response mapping makes of the recorded response. So a new
 * author never starts from cases that are wrong.
 */
describe('npm run new-app: the scaffold\'s test cases', () => {
  it('describe the request the engine builds and the envelope the mapping proposes', async () => {
    const tmp = await tempDir('scaffold-cases-');
    try {
      expect(await createApp(tmp.dir, 'acme-crm')).to.deep.include({ ok: true });
      const loaded = await loadDefinitions(tmp.dir);
      if (!loaded.ok) throw new Error(JSON.stringify(loaded.problems));
      const version = loaded.snapshot.apps.get('acme-crm')!.draft!;
      const action = version.actions.get('list-items')!;
      const auth = version.api.auths[0]!;
      const file = path.join(tmp.dir, 'acme-crm/versions/draft/actions/list-items.test.yaml');
      const { cases } = parse(await fs.readFile(file, 'utf8')) as { cases: TestCase[] };
      expect(cases.length).to.be.greaterThan(0);
      for (const c of cases) {
        const built = await buildOutboundRequest(
          { action, api: version.api, auth, host: { connection: c.connection?.credentials ?? {}, metadata: c.connection?.metadata ?? {} }, arguments: c.arguments ?? {} },
          { evaluateMapper: evaluateMapperPlainly, lookupOptions: () => Promise.resolve([]) },
        );
        const { method, url, query } = built.request;
        expect({ method, url, query }, c.name).to.deep.equal({ method: c.request.method, url: c.request.url, query: c.request.query });
        if (c.request.body !== undefined) expect(built.request.body ?? null, c.name).to.deep.equal(c.request.body);
        const authorization = fillTemplate((auth.definition as { value: string }).value, built.variables, 'value', [], headerText);
        if (c.request.headers?.authorization) expect(authorization, c.name).to.equal(c.request.headers.authorization);

        const input = { ...c.response, headers: c.response.headers ?? {}, action: { id: action.id, slug: action.slug, operation: action.operation, query, body: null }, arguments: built.arguments };
        const proposal = (await evaluateGuarded(action.response as unknown as GuardedExpression, input)) as { success: boolean; data: unknown[]; meta?: Record<string, unknown> };
        expect({ success: proposal.success, data: proposal.data }, c.name).to.deep.equal({ success: c.expect.success, data: c.expect.data });
        expect(proposal.meta ?? {}, c.name).to.deep.include(c.expect.meta ?? {});
      }
    } finally {
      await tmp.remove();
    }
  });
});

import { expect } from 'chai';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { documentedCall } from '../../helpers/openapi.ts';

type Document = { paths: Record<string, Record<string, any>> };

/** Every value of every example a parameter shows: `example`, `examples` (named), and its schema's `example`/`examples`. */
function examplesOf(parameter: any): unknown[] {
  return [
    ...(parameter.example !== undefined ? [parameter.example] : []),
    ...Object.values<any>(parameter.examples ?? {}).map((e) => e.value),
    ...(parameter.schema?.example !== undefined ? [parameter.schema.example] : []),
    ...(parameter.schema?.examples ?? []),
  ];
}

/** The list operations: those that take an RSQL `where`. */
function lists(doc: Document): { path: string; operation: any }[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries<any>(item)
      .filter(([method, op]) => method === 'get' && (op.parameters ?? []).some((p: any) => p.in === 'query' && p.name === 'where'))
      .map(([, operation]) => ({ path, operation })),
  );
}

function* schemaNodes(node: unknown): Generator<Record<string, unknown>> {
  if (Array.isArray(node)) for (const item of node) yield* schemaNodes(item);
  else if (node && typeof node === 'object') {
    yield node as Record<string, unknown>;
    for (const value of Object.values(node)) yield* schemaNodes(value);
  }
}

describe('the OpenAPI documents\' list parameters and enums say what the service accepts', () => {
  let gw: TestGateway;
  let endUserToken: string;
  const docs: Record<'v1' | 'v2', Document> = {} as never;
  before(async () => {
    gw = await startTestGateway();
    docs.v1 = (await call(gw, 'GET', '/v1/openapi.json', { auth: null })).body;
    docs.v2 = (await call(gw, 'GET', '/v2/openapi.json', { auth: null })).body;
    const userId = (await call(gw, 'POST', '/v1/users', { body: { externalId: 'ada', metadata: { region: 'eu' } } })).body.data.userId;
    endUserToken = (await call(gw, 'GET', `/v1/users/${userId}/token`)).body.token;
  });
  after(async () => {
    await gw.stop();
  });

  it('lists no value twice in any enum (a generated client would get a repeated union member)', () => {
    for (const [name, doc] of Object.entries(docs)) {
      const repeated = [...schemaNodes(doc)]
        .filter((node) => Array.isArray(node.enum))
        .map((node) => (node.enum as unknown[]).filter((value, i, all) => all.indexOf(value) !== i))
        .filter((twice) => twice.length > 0);
      expect(repeated, `${name}: values listed twice`).to.deep.equal([]);
    }
  });

  it('every example of every list parameter, sent to its own endpoint as Swagger UI\'s "Try it out" sends it, answers 200', async () => {
    let sent = 0;
    for (const [name, doc] of Object.entries(docs)) {
      const found = lists(doc);
      expect(found.length, `${name} has list endpoints`).to.be.greaterThan(0);
      for (const { path, operation } of found) {
        const auth = operation.security.some((s: Record<string, unknown>) => 'apiKey' in s) ? gw.apiKey : endUserToken;
        const parameters = (operation.parameters as any[]).filter((p) => p.in === 'query');
        const shown = parameters.flatMap((p) => examplesOf(p).map((value) => [p.name, String(value)] as const));
        expect(shown.map(([n]) => n), `${path}: sort and where are shown by example`).to.include.members(['sort', 'where']);
        for (const [parameter, value] of shown) {
          const answer = await documentedCall({ url: gw.url, apiKey: auth }, 'GET', `${path}?${new URLSearchParams({ [parameter]: value })}`);
          expect(answer.status, `${name} GET ${path}?${parameter}=${value}: ${JSON.stringify(answer.body.error)}`).to.equal(200);
          sent += 1;
        }
        // All of them together, as a reader who accepts every pre-filled value sends them.
        const together = await documentedCall({ url: gw.url, apiKey: auth }, 'GET', `${path}?${new URLSearchParams(Object.fromEntries(shown))}`);
        expect(together.status, `${name} GET ${path} with every example: ${JSON.stringify(together.body.error)}`).to.equal(200);
      }
    }
    expect(sent).to.be.at.least(15);
  });

  it("each list's where names the fields it filters on, as fields and sort name theirs", () => {
    for (const [name, doc] of Object.entries(docs)) {
      for (const { path, operation } of lists(doc)) {
        const parameter = (n: string) => (operation.parameters as any[]).find((p) => p.in === 'query' && p.name === n);
        const fields = /Fields: ([^.]+)\./.exec(parameter('fields').description)![1]!.split(', ');
        expect(fields.length, `${name} ${path}`).to.be.greaterThan(3);
        const where = parameter('where').description as string;
        const named = /Fields: (.+?)\.(?:\s|$)/.exec(where)?.[1]?.split(', ') ?? [];
        expect(named.map((f) => f.replace(/\.<key>$/, '')), `${name} ${path}: where's fields`).to.deep.equal(fields);
      }
    }
  });
});

import { expect } from 'chai';
import { buildOutboundRequest, evaluateMapperPlainly, lookupOptionsVia, type ArgumentDependencies, type MapperInput, type RunAction } from '../../../engine/core/arguments/index.ts';
import { GatewayError } from '../../../engine/platform/errors/index.ts';
import { loadGoldenApps, readGoldenFiles, versionOf } from '../../support/argument-cases.ts';

const snapshot = loadGoldenApps(readGoldenFiles());
const lists = versionOf(snapshot, 'lists');
const properties = versionOf(snapshot, 'properties');
const multiple = versionOf(snapshot, 'multiple-values');

async function failure(promise: Promise<unknown>): Promise<GatewayError> {
  try {
    await promise;
  } catch (error) {
    return error as GatewayError;
  }
  throw new Error('expected the build to fail');
}

/** What the run engine injects: the mapper evaluator and the lookup, and how their outcomes reach the caller. */
describe('arguments: injected dependencies', () => {
  const lookupOnce: ArgumentDependencies['lookupOptions'] = async () => [{ value: 11, label: 'Newsletter' }];

  it('a guarded evaluator that stops a mapper (timeout) makes a mapper problem naming its code', async () => {
    const timeout = Object.assign(new Error('Expression evaluation timeout: Check for infinite loop'), { code: 'U1001' });
    const error = await failure(
      buildOutboundRequest(
        { action: properties.actions.get('mapped')!, api: properties.api, arguments: { email: 'a@b.c' } },
        { evaluateMapper: () => Promise.reject(timeout), lookupOptions: lookupOnce },
      ),
    );
    expect(error.code).to.equal('VALIDATION_ERROR');
    expect((error.details as { problems: unknown[] }).problems).to.deep.include({
      field: 'email',
      rule: 'mapper',
      message: 'its mapper failed: Expression evaluation timeout: Check for infinite loop (U1001)',
    });
  });

  it('a mapper gets {value, arguments}: the value and every checked argument by key', async () => {
    const inputs: MapperInput[] = [];
    await buildOutboundRequest(
      { action: properties.actions.get('mapped')!, api: properties.api, arguments: { email: 'A@B.C', fullName: 'Ada' } },
      {
        evaluateMapper: (expression, input) => {
          inputs.push(input);
          return evaluateMapperPlainly(expression, input);
        },
        lookupOptions: lookupOnce,
      },
    );
    expect(inputs.map((i) => i.value)).to.deep.equal(['A@B.C', 'Ada', 'abc']);
    expect(inputs[0]!.arguments).to.deep.equal({ email: 'A@B.C', fullName: 'Ada', hiddenMapped: 'abc' });
  });

  it('a Lookup that is not strict is never asked: its value is sent as given', async () => {
    let calls = 0;
    const deps: ArgumentDependencies = {
      evaluateMapper: evaluateMapperPlainly,
      lookupOptions: async () => {
        calls++;
        return [{ value: 11, label: 'Newsletter' }];
      },
    };
    const built = await buildOutboundRequest({ action: lists.actions.get('create-invoice')!, api: lists.api, arguments: { channel: 'C-on-page-7' } }, deps);
    expect(built.request.body).to.deep.include({ channel: 'C-on-page-7' });
    expect(calls).to.equal(0);
  });

  it('a strict lookup is asked once per list and build, and only when a value needs checking', async () => {
    let calls = 0;
    const deps: ArgumentDependencies = {
      evaluateMapper: evaluateMapperPlainly,
      lookupOptions: async () => {
        calls++;
        return [{ value: 11, label: 'Newsletter' }];
      },
    };
    await buildOutboundRequest({ action: lists.actions.get('create-invoice')!, api: lists.api, arguments: {} }, deps);
    expect(calls).to.equal(0);
    await buildOutboundRequest({ action: lists.actions.get('create-invoice')!, api: lists.api, arguments: { listId: 11 } }, deps);
    expect(calls).to.equal(1);
  });

  it("a lookup that fails is the app's failure, passed on as it is (not a VALIDATION_ERROR)", async () => {
    const run: RunAction = async () => ({ success: false, data: [] });
    const error = await failure(
      buildOutboundRequest(
        { action: lists.actions.get('create-invoice')!, api: lists.api, arguments: { listId: 11 } },
        { evaluateMapper: evaluateMapperPlainly, lookupOptions: lookupOptionsVia(run, { companyId: 'co', connectionId: 'c-1', version: lists }) },
      ),
    );
    expect([error.status, error.code]).to.deep.equal([502, 'LOOKUP_FAILED']);
  });

  it('lookupOptionsVia runs the lookup action through the engine and checks a strict value against its rows', async () => {
    const run: RunAction = async ({ action }) => ({ success: true, data: action.id === 'list-lists' ? [{ id: 11, name: 'Newsletter' }] : [] });
    const deps = { evaluateMapper: evaluateMapperPlainly, lookupOptions: lookupOptionsVia(run, { companyId: 'co', connectionId: 'c-1', version: lists }) };
    const built = await buildOutboundRequest({ action: lists.actions.get('create-invoice')!, api: lists.api, arguments: { listId: '11' } }, deps);
    expect(built.request.body).to.deep.include({ list_id: 11 });
    const error = await failure(buildOutboundRequest({ action: lists.actions.get('create-invoice')!, api: lists.api, arguments: { listId: 12 } }, deps));
    expect((error.details as { problems: { rule: string }[] }).problems.map((p) => p.rule)).to.deep.equal(['lookup']);
  });

  it('a build does not change the definitions it reads (defaults are copied)', async () => {
    const action = multiple.actions.get('invite')!;
    const before = JSON.stringify(action.arguments);
    await buildOutboundRequest({ action, api: multiple.api, arguments: { flags: [true] } }, { evaluateMapper: evaluateMapperPlainly, lookupOptions: lookupOnce });
    expect(JSON.stringify(action.arguments)).to.equal(before);
  });
});

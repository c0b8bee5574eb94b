import { expect } from 'chai';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { evaluateMapperPlainly, type ArgumentDependencies } from '../../../engine/core/arguments/index.ts';
import { DefinitionsLoader } from '../../../engine/core/definitions/loader.ts';
import { planOf } from '../../../engine/core/plan/index.ts';
import { GatewayError } from '../../../engine/platform/errors/index.ts';
import type { AppVersion } from '../../../engine/core/definitions/snapshot.ts';
import { inputSchemaOf, ISO_8601_PATTERN } from '../../../engine/mcp/tools/input-schema.ts';
import { annotationsOf } from '../../../engine/mcp/tools/annotations.ts';
import { TOOL_NAME_MAX, toolName } from '../../../engine/mcp/tools/tool-name.ts';
import { ROOT } from '../../helpers/process.ts';
import { definitionsFor } from '../../helpers/upstream.ts';

describe('MCP tools: names, input schemas and annotations from the definitions', () => {
  let store: AppVersion;
  let cleanup: () => Promise<void>;
  before(async () => {
    const defs = await definitionsFor(path.join(ROOT, 'spec/fixtures/mcp'), 'http://127.0.0.1:9');
    cleanup = defs.cleanup;
    const loaded = await new DefinitionsLoader().loadDirectory(defs.dir);
    expect(loaded.ok, JSON.stringify(loaded.problems)).to.equal(true);
    store = loaded.snapshot!.apps.get('store')!.versions.get(1)!;
  });
  after(() => cleanup());
  const action = (id: string) => store.actions.get(id)!;

  /** What the run says of these arguments: 'ok', or the rule of each problem by field (nothing is sent: the plan only builds the request). */
  async function runSays(version: AppVersion, id: string, args: Record<string, unknown>): Promise<string> {
    const deps: ArgumentDependencies = { evaluateMapper: evaluateMapperPlainly, lookupOptions: async () => [] };
    const auth = version.api.auths[0];
    const connection = Object.fromEntries((auth?.arguments ?? []).map((a) => [a.key, 'k']));
    try {
      await planOf(version, version.actions.get(id)!).build({ auth, host: { connection }, arguments: args }, deps);
      return 'ok';
    } catch (error) {
      if (!(error instanceof GatewayError)) throw error;
      return ((error.details as { problems?: { field: string; rule: string }[] } | undefined)?.problems ?? []).map((p) => `${p.field}: ${p.rule}`).join(', ') || error.message;
    }
  }

  it('an Object argument with children is an object of exactly them; a Country list an ISO code; multipleValues an array; a Date ISO 8601 text; rules as keywords', () => {
    expect(inputSchemaOf(action('create-order'), store)).to.deep.equal({
      type: 'object',
      properties: {
        customer: {
          type: 'object',
          properties: {
            email: { type: 'string', format: 'email', minLength: 1 },
            country: { type: 'string', pattern: '^[A-Za-z]{2}$', description: 'An ISO 3166-1 alpha-2 country code, such as US or DE.' },
          },
          required: ['email'],
          additionalProperties: false,
        },
        tags: { type: 'array', items: { type: 'string' } },
        note: { type: 'string', maxLength: 20 },
        placedAt: { type: 'string', pattern: ISO_8601_PATTERN, description: 'An ISO 8601 date (2024-05-01) or date-time with a time zone (2024-05-01T12:00:00Z).' },
      },
      required: ['customer'],
      additionalProperties: false,
    });
  });

  it('a Lookup list is described with the tool that lists its options; a path parameter is required, with its pattern', () => {
    expect(inputSchemaOf(action('refund-order'), store).properties).to.deep.equal({
      orderId: { anyOf: [{ type: 'string', minLength: 1 }, { type: 'number' }], description: 'The id of one of the rows the tool store_list-orders returns (its label names it).' },
    });
    expect(inputSchemaOf(action('get-order'), store)).to.deep.include({
      properties: { orderId: { type: 'string', pattern: '^o[0-9]+$', minLength: 1, not: { enum: ['.', '..'] }, description: "The order's id, such as o1." } },
      required: ['orderId'],
    });
  });

  it('every schema is a valid JSON Schema 2020-12 that admits what the engine admits and refuses what it refuses', () => {
    const ajv = new Ajv2020.default({ strict: true, allErrors: true });
    addFormats.default(ajv);
    for (const entry of store.actions.values()) ajv.compile(inputSchemaOf(entry, store));
    const create = ajv.compile(inputSchemaOf(action('create-order'), store));
    expect(create({ customer: { email: 'ada@example.com', country: 'de' }, tags: ['a', 'b'], note: 'short', placedAt: '2024-05-01' })).to.equal(true);
    expect(create({ customer: { country: 'DE' } })).to.equal(false);
    expect(create({ customer: { email: 'ada@example.com', phone: '1' } })).to.equal(false);
    expect(create({ customer: { email: 'ada@example.com' }, note: 'x'.repeat(21) })).to.equal(false);
    const list = ajv.compile(inputSchemaOf(action('list-orders'), store));
    expect(list({ status: 'open', limit: 5, cursor: 'abc' })).to.equal(true);
    expect(list({ region: 'us' })).to.equal(false);
    expect(list({ limit: 2.5 })).to.equal(false);
  });

  it('what the schema refuses the run refuses, and what it admits the run accepts: blank required values and path parameters, . and .. segments, dates, date-times', async () => {
    const ajv = new Ajv2020.default({ strict: true, allErrors: true });
    addFormats.default(ajv);
    const loaded = await new DefinitionsLoader().loadDirectory(path.join(ROOT, 'definitions'));
    const todos = loaded.snapshot!.apps.get('demo-todos')!.versions.get(1)!;
    const cases: { version: AppVersion; id: string; valid: Record<string, unknown>; refused: [Record<string, unknown>, string][] }[] = [
      { version: todos, id: 'create-todo', valid: { title: 'Buy milk' }, refused: [[{ title: '' }, 'title: required']] },
      { version: todos, id: 'get-todo', valid: { todoId: 't1' }, refused: [[{ todoId: '' }, 'todoId: required'], [{ todoId: '..' }, 'todoId: pathSegment'], [{ todoId: '.' }, 'todoId: pathSegment']] },
      {
        version: store,
        id: 'schedule-order',
        valid: { orderId: 'o1', slot: 'morning/early', at: '2024-02-29T09:30+02:00', items: ['a'], confirmedAt: '2024-05-01T12:00:00.5Z' },
        refused: [
          [{ orderId: '' }, 'orderId: required'],
          [{ orderId: '..' }, 'orderId: pathSegment'],
          [{ slot: '' }, 'slot: required'],
          [{ slot: 'a/../b' }, 'slot: pathSegment'],
          [{ slot: './b' }, 'slot: pathSegment'],
          [{ slot: 'a//b' }, 'slot: pathSegment'],
          [{ slot: 'a/' }, 'slot: pathSegment'],
          [{ at: 'yesterday' }, 'at: type'],
          [{ at: '' }, 'at: required'],
          [{ at: '2023-02-29' }, 'at: type'],
          [{ at: '2024-05-01T12:00' }, 'at: type'],
          [{ at: '2024-05-01T24:00Z' }, 'at: type'],
          [{ at: '0099-01-01' }, 'at: type'],
          [{ items: [] }, 'items: required'],
          [{ confirmedAt: '2024-05-01 12:00:00Z' }, 'confirmedAt: format'],
          [{ confirmedAt: '2024-05-01T23:59:60Z' }, 'confirmedAt: format'],
        ],
      },
    ];
    for (const { version, id, valid, refused } of cases) {
      const admits = ajv.compile(inputSchemaOf(version.actions.get(id)!, version));
      expect(admits(valid), `${id} ${JSON.stringify(valid)}: ${JSON.stringify(admits.errors)}`).to.equal(true);
      expect(await runSays(version, id, valid), `${id} ${JSON.stringify(valid)}`).to.equal('ok');
      for (const [change, rule] of refused) {
        const args = { ...valid, ...change };
        expect(await runSays(version, id, args), `${id} ${JSON.stringify(args)}`).to.equal(rule);
        expect(admits(args), `the schema of ${id} admits ${JSON.stringify(args)}, which the run refuses (${rule})`).to.equal(false);
      }
    }
  });

  it('annotations follow the operation: reads are read-only and idempotent, delete destroys, update by PUT is idempotent, create is neither', () => {
    const hints = (id: string) => {
      const { title: _title, ...rest } = annotationsOf(action(id), 'x');
      return rest;
    };
    expect(hints('get-order')).to.deep.equal({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true });
    expect(hints('delete-order')).to.deep.equal({ readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true });
    expect(hints('update-order')).to.deep.equal({ readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true });
    expect(hints('create-order')).to.deep.equal({ readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true });
  });

  it('names are <app>_<action>; one too long for 64 characters keeps its start and ends in a hash of the whole, the same every time, and two alike differ', () => {
    expect(toolName('github', 'list-issues')).to.equal('github_list-issues');
    const app = 'a-very-long-app-slug-for-an-integration-platform';
    const one = toolName(app, 'list-all-the-things-of-the-workspace');
    const two = toolName(app, 'list-all-the-things-of-the-workspace-archive');
    expect(one).to.have.length(TOOL_NAME_MAX);
    expect(one).to.match(/^a-very-long-app-slug-for-an-integration-platform_list-a_[0-9a-f]{8}$/);
    expect(toolName(app, 'list-all-the-things-of-the-workspace')).to.equal(one);
    expect(two).not.to.equal(one);
    for (const name of [one, two]) expect(name).to.match(/^[A-Za-z0-9_-]{1,64}$/);
  });
});

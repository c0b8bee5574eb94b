import { expect } from 'chai';
import fc from 'fast-check';
import fs from 'node:fs';
import path from 'node:path';
import jsonata from 'jsonata';
import YAML from 'yaml';
import { guardedJsonata } from '../../../engine/core/mapping/compile.ts';
import { fastPathOf } from '../../../engine/core/mapping/fast/index.ts';
import { RESPONSE_MAPPING } from '../../../scripts/bench/bench-app.ts';
import { expectAgreement, parses } from '../../support/fast-path-agreement.ts';

/**
 * Differential test of the fast path on every expression the repository
 * holds (response mappings, argument mappers and exchange mappings of
 * definitions/ and spec/fixtures, and the benchmark's mapping): evaluated on
 * the provider responses of the offline test cases (*.test.yaml) and on
 * generated bodies that use the expressions' own field names, the fast path
 * answers as jsonata does.
 */
function yamlFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    return entry.isDirectory() ? yamlFiles(file) : file.endsWith('.yaml') ? [file] : [];
  });
}

const files = [...yamlFiles('definitions'), ...yamlFiles('spec/fixtures')];
const documents = files.map((file) => {
  try {
    return { file, doc: YAML.parse(fs.readFileSync(file, 'utf8')) as unknown };
  } catch {
    return { file, doc: undefined };
  }
});

type Doc = { response?: unknown; arguments?: { mapper?: unknown }[]; cases?: { arguments?: Record<string, unknown>; response?: unknown; responses?: { response?: unknown }[] }[] };
const responses = new Set<string>([RESPONSE_MAPPING]);
const mappers = new Set<string>();
/** Each response mapping's own action file, whose offline cases recorded the responses it was written for. */
const actionFileOf = new Map<string, string>();
for (const { file, doc } of documents) {
  if (file.endsWith('.test.yaml') || !doc || typeof doc !== 'object') continue;
  const d = doc as Doc;
  if (typeof d.response === 'string' && parses(d.response)) {
    responses.add(d.response);
    if (!actionFileOf.has(d.response)) actionFileOf.set(d.response, file);
  }
  for (const arg of Array.isArray(d.arguments) ? d.arguments : []) if (typeof arg?.mapper === 'string' && parses(arg.mapper)) mappers.add(arg.mapper);
}

/** The provider responses and caller arguments of the offline test cases. */
type Recorded = { status?: number; headers?: Record<string, string>; body?: unknown };
const casesOf = (doc: unknown) => ((doc as Doc | undefined)?.cases ?? []);
const recordedOf = (cases: Doc['cases'] & object) =>
  cases.flatMap((c) => [c.response, ...(c.responses ?? []).map((r) => r.response)]).filter((r): r is Recorded => !!r && typeof r === 'object');
const cases = documents.flatMap(({ file, doc }) => (file.endsWith('.test.yaml') && doc ? casesOf(doc) : []));
const providerResponses = recordedOf(cases);
const callerArguments = cases.map((c) => c.arguments ?? {});
const testDocs = new Map(documents.filter(({ file }) => file.endsWith('.test.yaml')).map(({ file, doc }) => [file, doc]));

/**
 * What a mapping is checked on: the responses recorded for its own action,
 * then an even sample of everyone else's (SAMPLE of them), so the check grows
 * with the catalogue, not with its square (every mapping on every response
 * took a minute at ten apps).
 */
const SAMPLE = 24;
function responsesFor(source: string): Recorded[] {
  const file = actionFileOf.get(source);
  const own = file ? recordedOf(casesOf(testDocs.get(file.replace(/\.yaml$/, '.test.yaml')))) : [];
  const stride = Math.max(1, Math.floor(providerResponses.length / SAMPLE));
  return [...own, ...providerResponses.filter((_, i) => i % stride === 0)];
}

const action = { id: 'list-things', slug: 'list-things', operation: 'list', query: {}, body: null };
const mappingInput = (response: { status?: number; headers?: Record<string, string>; body?: unknown }, args: Record<string, unknown>) => ({
  status: response.status ?? 200,
  headers: response.headers ?? {},
  body: response.body ?? null,
  action,
  arguments: args,
});

/** The field names an expression reads, so generated bodies reach into it. */
function namesOf(node: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(node)) node.forEach((item) => namesOf(item, into));
  else if (node && typeof node === 'object') {
    const n = node as { type?: string; value?: unknown };
    if (n.type === 'name' && typeof n.value === 'string') into.add(n.value);
    Object.values(node).forEach((value) => namesOf(value, into));
  }
  return into;
}

function bodyFor(source: string): fc.Arbitrary<unknown> {
  const names = [...namesOf(jsonata(source).ast()), 'other'];
  return fc.letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.constantFrom(null, true, false, '', 'x', 'Ab C', '0', '1700000000'),
      fc.oneof(fc.integer({ min: -3, max: 3 }), fc.constantFrom(200, 201, 204, 401, 404, 1.5, 0.1 + 0.2, 1700000000)),
      fc.array(tie('value'), { maxLength: 4 }),
      fc.dictionary(fc.constantFrom(...names), tie('value'), { maxKeys: 5 }),
    ),
  })).value;
}

/**
 * The expressions outside the subset: a regular expression outside $match ($replace), a function definition,
 * a variable bound in a block (`:=`: HubSpot's search filters and SendGrid's mail parts built in steps), a
 * built-in the subset does not have ($decodeUrlComponent: HubSpot's cursor; $split: Calendly's event URI cut to
 * its UUID; $sum: Square's refunded total), or a wildcard (QuickBooks' query answers the rows of whatever
 * entity it names). jsonata evaluates these, as it does every expression the fast path does not take.
 */
const OUTSIDE = [/\$replace\(/, /function\(/, /:=/, /\$decodeUrlComponent\(/, /\$split\(/, /\$sum\(/, /\.\*/];

describe('the fast path on the repository expressions', () => {
  it('finds every expression in the subset but those with $replace, a function definition, a variable binding, $decodeUrlComponent, $split, $sum or a wildcard', () => {
    expect(responses.size).to.be.greaterThan(20);
    for (const source of [...responses, ...mappers]) {
      const outside = OUTSIDE.some((pattern) => pattern.test(source));
      expect(fastPathOf(guardedJsonata(source)) === null, source).to.equal(outside);
    }
  });

  it('maps the offline test cases as jsonata does, the fast path answering for every expression in the subset', async function () {
    // Linear in the catalogue (responsesFor), but a whole catalogue's worth of jsonata on a busy machine.
    this.timeout(120_000);
    expect(providerResponses.length).to.be.greaterThan(50);
    for (const source of responses) {
      let answered = 0;
      for (const [i, response] of responsesFor(source).entries()) {
        if (await expectAgreement(source, mappingInput(response, callerArguments[i % callerArguments.length]!))) answered++;
      }
      const inSubset = !OUTSIDE.some((pattern) => pattern.test(source));
      if (inSubset) expect(answered, `the fast path never answered for ${source}`).to.be.greaterThan(0);
    }
  });

  it('maps argument values as jsonata does', async () => {
    const values = ['Ada', '  Grace  Hopper ', "o'neil \\ x", '', 'ÉCOLE', 'mixed\tspace\nline', 12, true, null, ['a', 'b'], { a: 1 }];
    for (const source of mappers) for (const value of values) await expectAgreement(source, { value, arguments: { value } });
  });

  for (const source of responses) {
    it(`maps generated bodies as jsonata does: ${source.replace(/\s+/g, ' ').slice(0, 70)}`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(200, 201, 204, 401, 403, 404, 500), bodyFor(source), fc.dictionary(fc.constantFrom('link', 'x-ratelimit-remaining'), fc.constantFrom('0', '5', '<https://x?page=2>; rel="next"')), async (status, body, headers) => {
          await expectAgreement(source, { status, headers, body, action, arguments: { labelName: 'bug', contactId: '7', customerId: 'cus_1' } });
        }),
        { numRuns: 150, seed: 20260214 },
      );
    });
  }
});

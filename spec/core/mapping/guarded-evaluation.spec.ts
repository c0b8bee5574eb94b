import { expect } from 'chai';
import jsonata from 'jsonata';
import { compileExpression, guardedJsonata, type GuardedExpression } from '../../../engine/core/mapping/compile.ts';
import { evaluateGuarded } from '../../../engine/core/mapping/evaluate.ts';
import { DEFAULT_MAPPING_LIMITS, type MappingLimits } from '../../../engine/core/mapping/limits.ts';
import { MappingError } from '../../../engine/core/mapping/mapping-error.ts';

const ORIGIN = { file: 'definitions/acme/versions/2/actions/list-items.yaml', line: 14, column: 5 };
const SMALL: MappingLimits = { ...DEFAULT_MAPPING_LIMITS, timeoutMs: 200, maxDepth: 200, maxSequence: 1000 };
/** For the stack and sequence cases: a timeout so generous that only the limit under test can stop them, however busy the machine. */
const UNHURRIED: MappingLimits = { ...SMALL, timeoutMs: 20_000 };

async function mappingFailure(compiled: GuardedExpression, input: unknown = {}, bindings: Record<string, unknown> = {}): Promise<MappingError> {
  try {
    await evaluateGuarded(compiled, input, bindings);
  } catch (error) {
    expect(error).to.be.instanceOf(MappingError);
    return error as MappingError;
  }
  throw new Error('expected a MappingError');
}

describe('JSONata mappings with guardrails', () => {
  describe('a normal evaluation', () => {
    it('maps the input with bindings into plain JSON', async () => {
      const compiled = compileExpression(
        '{ "success": status = 200, "data": body.items.{ "id": id, "name": $uppercase(name) }, "meta": { "cursor": body.next, "action": $action.slug } }',
        ORIGIN,
      );
      const result = await evaluateGuarded(
        compiled,
        { status: 200, body: { items: [{ id: 1, name: 'ada' }, { id: 2, name: 'grace' }], next: 'p2' } },
        { action: { slug: 'list-items' } },
      );
      expect(result).to.deep.equal({
        success: true,
        data: [{ id: 1, name: 'ADA' }, { id: 2, name: 'GRACE' }],
        meta: { cursor: 'p2', action: 'list-items' },
      });
      expect(Object.keys((result as { data: unknown[] }).data), 'a plain array, no sequence flags').to.deep.equal(['0', '1']);
    });

    it('drops functions and undefined members, and answers undefined for nothing', async () => {
      const result = await evaluateGuarded(compileExpression('{ "f": function($x){ $x }, "missing": nothing, "kept": 1 }', ORIGIN), {});
      expect(result).to.deep.equal({ kept: 1 });
      expect(await evaluateGuarded(compileExpression('body.none', ORIGIN), { body: {} })).to.equal(undefined);
    });

    it('serves concurrent evaluations of one compiled expression, each with its own input', async () => {
      const compiled = compileExpression('$sum(body.values) * $factor', ORIGIN);
      const results = await Promise.all(Array.from({ length: 30 }, (_, i) => evaluateGuarded(compiled, { body: { values: [i, i] } }, { factor: 10 })));
      expect(results).to.deep.equal(Array.from({ length: 30 }, (_, i) => i * 20));
    });
  });

  describe('runaway expressions are stopped with MAPPING_ERROR naming the file, line and reason', () => {
    it('stops an infinite loop by the timeout', async () => {
      const compiled = compileExpression('(\n  $f := function() { $f() };\n  $f()\n)', ORIGIN, SMALL);
      const error = await mappingFailure(compiled);
      expect(error.code).to.equal('MAPPING_ERROR');
      expect(error.details).to.include({ file: ORIGIN.file, reason: 'timeout', code: 'D1012', limit: 200, setting: 'MAPPING_TIMEOUT_MS' });
      expect(error.details.line).to.be.within(ORIGIN.line, ORIGIN.line + 2);
      expect(error.message).to.match(
        /^definitions\/acme\/versions\/2\/actions\/list-items\.yaml:1[4-6]:\d+: the mapping was stopped after 200 ms \(MAPPING_TIMEOUT_MS\); check for an infinite loop$/,
      );
    });

    it('stops a loop inside $map over a range by the timeout', async () => {
      const compiled = compileExpression('$map([1..900], function($v) { ( $spin := function($n) { $n > 0 ? $spin($n) : 0 }; $spin(1) ) })', ORIGIN, SMALL);
      expect((await mappingFailure(compiled)).details.reason).to.equal('timeout');
    });

    it('stops deep recursion by the stack limit', async () => {
      const compiled = compileExpression('( $down := function($n) { 1 + $down($n + 1) }; $down(0) )', ORIGIN, UNHURRIED);
      const error = await mappingFailure(compiled);
      expect(error.details).to.include({ reason: 'stack', code: 'D1011', limit: 200, setting: 'MAPPING_MAX_DEPTH', line: 14 });
      expect(error.message).to.match(/:14:\d+: the mapping was stopped at evaluation depth 200 \(MAPPING_MAX_DEPTH\)/);
    });

    it('says the data may be what is too deep when a mapping without recursion reaches the limit', async () => {
      let nested: unknown = [1];
      for (let i = 0; i < 100_000; i++) nested = [nested];
      const error = await mappingFailure(compileExpression('{ "data": [body] }', ORIGIN, UNHURRIED), { body: nested });
      expect(error.details).to.include({ reason: 'stack', limit: 200 });
      expect(error.message).to.include('a recursion without a base case (make it tail-recursive), or the app answered data nested deeper than that');
    });

    it('lets recursion with a base case finish within the limit', async () => {
      const compiled = compileExpression('( $fact := function($n) { $n <= 1 ? 1 : $n * $fact($n - 1) }; $fact(10) )', ORIGIN, UNHURRIED);
      expect(await evaluateGuarded(compiled, {})).to.equal(3628800);
    });

    const sequences: [string, string][] = [
      ['a range', '[1..200000]'],
      ['an appended sequence', '( $x := [1..800]; $append($x, $x) )'],
      ['a path over a large input array', 'body.items.id'],
      ['a result array', '$split($pad("", 5000, "a"), "")'],
    ];
    for (const [name, source] of sequences) {
      it(`stops ${name} longer than the sequence limit`, async () => {
        const input = { body: { items: Array.from({ length: 5000 }, (_, id) => ({ id })) } };
        const error = await mappingFailure(compileExpression(source, ORIGIN, UNHURRIED), input);
        expect(error.details).to.include({ reason: 'sequence', code: 'D2015', limit: 1000, setting: 'MAPPING_MAX_SEQUENCE' });
        expect(error.message).to.match(/the mapping built a sequence of more than 1000 items \(MAPPING_MAX_SEQUENCE\)$/);
      });
    }
  });

  describe('errors', () => {
    it('reports $error with its message, at the line that raised it', async () => {
      const compiled = compileExpression('(\n  $ok := body.ok;\n  $ok ? body : $error("the app said no")\n)', ORIGIN);
      const error = await mappingFailure(compiled, { body: { ok: false } });
      expect(error.details).to.include({ reason: 'error', code: 'D3137', line: 16, file: ORIGIN.file });
      expect(error.message).to.match(/^definitions\/acme\/versions\/2\/actions\/list-items\.yaml:16:\d+: the app said no \(D3137\)$/);
    });

    it('reports a type error with jsonata message and code', async () => {
      const error = await mappingFailure(compileExpression('body.name + 1', ORIGIN), { body: { name: 'x' } });
      expect(error.details).to.include({ reason: 'evaluation', code: 'T2001', line: 14 });
      expect(error.message).to.match(/:14:\d+: The left side of the "\+" operator must evaluate to a number \(T2001\)$/);
    });

    it('reports a syntax error when compiling, with the line and column', () => {
      let caught: unknown;
      try {
        compileExpression('{\n  "data": body.items[\n}', ORIGIN);
      } catch (error) {
        caught = error;
      }
      expect(caught).to.be.instanceOf(MappingError);
      const error = caught as MappingError;
      expect(error.details).to.include({ reason: 'syntax', file: ORIGIN.file });
      expect(error.details.line).to.be.within(15, 16);
      expect(error.message).to.match(/^definitions\/acme\/versions\/2\/actions\/list-items\.yaml:1[56]:\d+: the mapping does not parse: .+ \(S0\d{3}\)$/);
    });

    it('answers the error envelope shape of a GatewayError', async () => {
      const error = await mappingFailure(compileExpression('$error("no")', ORIGIN));
      expect(error.toBody()).to.deep.equal({
        success: false,
        error: {
          code: 'MAPPING_ERROR',
          message: `${ORIGIN.file}:14:${error.details.column}: no (D3137)`,
          details: { file: ORIGIN.file, line: 14, column: error.details.column, reason: 'error', code: 'D3137' },
        },
      });
    });
  });

  describe('guardrails cannot be left out', () => {
    it('evaluates an expression made with guardedJsonata (as the definitions snapshot holds them)', async () => {
      const compiled = { source: '$sum(body)', at: ORIGIN, expression: guardedJsonata('$sum(body)', SMALL) };
      expect(await evaluateGuarded(compiled, { body: [1, 2] })).to.equal(3);
    });

    it('refuses an expression compiled without guardrails', async () => {
      const compiled = { source: '$sum(body)', at: ORIGIN, expression: jsonata('$sum(body)') };
      const error = await evaluateGuarded(compiled, { body: [1, 2] }).catch((e: unknown) => e);
      expect((error as Error).message).to.equal(`the expression of ${ORIGIN.file}:14 was compiled without guardrails; compile it with guardedJsonata()`);
    });
  });

  describe('concurrency', () => {
    it('a runaway mapping lets other mappings and the event loop go on while it runs', async function () {
      // The timeout counts the mapping's CPU time: on a machine busy with other work, a second of it takes longer to pass.
      this.timeout(120_000);
      const events: string[] = [];
      const runaway = compileExpression('( $f := function() { $f() }; $f() )', ORIGIN, { ...SMALL, timeoutMs: 1000 });
      const quick = compileExpression('$sum(values)', ORIGIN, UNHURRIED);
      const stopped = evaluateGuarded(runaway, {}).then(
        () => events.push('runaway finished?!'),
        (error: MappingError) => events.push(`runaway stopped: ${error.details.reason}`),
      );
      const timer = new Promise<void>((resolve) => setTimeout(() => resolve(void events.push('timer')), 1));
      const quickOnes = Promise.all(
        Array.from({ length: 20 }, (_, i) => evaluateGuarded(quick, { values: [i, 1] }).then((sum) => events.push(`quick ${sum}`))),
      );
      await Promise.all([timer, quickOnes, stopped]);
      const stoppedAt = events.indexOf('runaway stopped: timeout');
      expect(stoppedAt, events.join(', ')).to.equal(events.length - 1);
      expect(events.filter((e) => e.startsWith('quick'))).to.have.length(20);
      expect(events.indexOf('timer'), 'a timer fired while the runaway mapping was still running').to.be.below(stoppedAt);
    });
  });
});

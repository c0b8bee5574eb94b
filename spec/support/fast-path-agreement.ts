import { expect } from 'chai';
import jsonata from 'jsonata';
import { guardedJsonata } from '../../engine/core/mapping/compile.ts';
import { evaluateFast, fastPathOf, FELL_BACK } from '../../engine/core/mapping/fast/index.ts';
import { DEFAULT_MAPPING_LIMITS, type MappingLimits } from '../../engine/core/mapping/limits.ts';
import { toJson } from '../../engine/core/mapping/to-json.ts';

/** The reference evaluation must not be cut short by a busy machine: jsonata gets a generous timeout. */
const UNHURRIED: MappingLimits = { ...DEFAULT_MAPPING_LIMITS, timeoutMs: 60_000 };

/** Whether jsonata parses the expression: the fast path is compared only on what jsonata accepts. */
export function parses(source: string): boolean {
  try {
    jsonata(source);
    return true;
  } catch {
    return false;
  }
}

export type Outcome = { ok: true; value: unknown } | { ok: false; code: string | undefined };

/** What jsonata alone makes of the expression (as evaluateGuarded did before the fast path): plain JSON, or the error's code. */
export async function jsonataOutcome(source: string, input: unknown, bindings: Record<string, unknown> = {}, limits: MappingLimits = UNHURRIED): Promise<Outcome> {
  try {
    return { ok: true, value: toJson(await guardedJsonata(source, limits).evaluate(input, bindings), limits.maxSequence) };
  } catch (error) {
    return { ok: false, code: (error as { code?: string }).code };
  }
}

/**
 * Evaluates `source` with the fast path and with jsonata, and fails unless
 * they agree: whenever the fast path answers, jsonata answers the same
 * (deep-equal, and the same JSON text, so the same key order), and so does
 * the fast path's resumable form alone. Returns
 * whether the fast path answered (false: outside the subset, or it fell back).
 */
export async function expectAgreement(source: string, input: unknown, bindings: Record<string, unknown> = {}, limits: MappingLimits = UNHURRIED): Promise<boolean> {
  const fast = fastPathOf(guardedJsonata(source, limits));
  const quick = fast ? evaluateFast(fast, structuredClone(input), bindings) : FELL_BACK;
  if (quick === FELL_BACK) return false;
  const slow = await jsonataOutcome(source, structuredClone(input), bindings, limits);
  const what = `${source}\non ${JSON.stringify(input)}`;
  expect(slow, `jsonata fails where the fast path answers ${JSON.stringify(quick)}: ${what}`).to.include({ ok: true });
  const value = (slow as { value: unknown }).value;
  expect(quick, what).to.deep.equal(value);
  expect(JSON.stringify(quick), what).to.equal(JSON.stringify(value));
  // The resumable form (what an evaluation longer than a slice runs), yielding at every look at the clock, answers the same.
  const resumed = evaluateFast(fast!, structuredClone(input), bindings, 'resumable');
  expect(JSON.stringify(resumed), `the resumable form on ${what}`).to.equal(JSON.stringify(value));
  return true;
}

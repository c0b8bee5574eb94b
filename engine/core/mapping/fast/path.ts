import { due, NotInSubset, type AstNode, type Child, type Compiled } from './node.ts';
import { bail, createSequence, isArrayOfNumbers, isNumeric, isSequence, pushItem, toBoolean, type Run, type Sequence } from './values.ts';

/**
 * Paths and filters, as jsonata 2.2.2's evaluatePath, evaluateStep and
 * evaluateFilter do them, in both forms (node.ts): the synchronous closures
 * and the generators that yield where the slice ends. Each pair shares its
 * bookkeeping (the helpers below); only the calls of children differ.
 */
interface Step {
  evaluate: Compiled;
  stages: Compiled[];
  last: boolean;
  whole: boolean;
  /** Where a resumable evaluation that yields in this step's loop says it was. */
  position: number | undefined;
}

export function compilePath(node: AstNode, child: Child): Compiled {
  const steps: Step[] = node.steps!.map((step, index) => {
    if (step.type === 'name' && typeof step.value !== 'string') throw new NotInSubset('a name that is not a string');
    const evaluate = child(step);
    const stages = (step.stages ?? []).map((stage) => compileFilter(stage, child));
    const last = index === node.steps!.length - 1;
    const whole = index === 0 && step.consarray === true;
    return { evaluate, stages, last, whole, position: step.position ?? node.position };
  });
  const absolute = node.steps![0]!.type === 'variable';
  const keepSingletonArray = node.keepSingletonArray === true;
  const sync = (input: unknown, run: Run): unknown => {
    let inputSequence: unknown[] | undefined = Array.isArray(input) && !absolute ? input : undefined;
    let resultSequence: unknown;
    for (const step of steps) {
      if (step.whole) resultSequence = step.evaluate.sync(inputSequence ?? createSequence(input), run);
      else if (inputSequence === undefined) resultSequence = stepOnOne(step, input, run);
      else resultSequence = stepOnEach(step, inputSequence, run);
      if (resultSequence === undefined || (resultSequence as unknown[]).length === 0) break;
      if (!Array.isArray(resultSequence)) bail(); // a constructed first step that is not an array: beyond the subset
      inputSequence = resultSequence;
    }
    return keepSingletonArray ? keepSingleton(resultSequence) : resultSequence;
  };
  // One field name read from one object (`"id": id` in an object constructor, for each record): what the steps
  // would answer, a sequence of the value that the path's end (compile.ts `ended`) unwraps again, is the value
  // itself, so it is answered without the sequence. An array input, a sequence value (a name step's `[]`) and
  // undefined (an empty sequence, which a predicate on the path reads differently) take the steps as jsonata does.
  const [only] = steps;
  if (steps.length === 1 && !absolute && !keepSingletonArray && !only!.whole && only!.stages.length === 0 && only!.evaluate.leaf && node.keepArray !== true && !node.predicate?.length) {
    const evaluate = only!.evaluate.sync;
    const single = (input: unknown, run: Run): unknown => {
      if (Array.isArray(input)) return sync(input, run);
      const value = evaluate(input, run);
      return value === undefined || isSequence(value) ? oneResult(value, true, run) : value;
    };
    return { sync: single };
  }
  // Steps that are all field names (or variables) only look things up: work proportional to the data, done synchronously.
  if (steps.every((step) => step.evaluate.leaf && step.stages.every((stage) => stage.leaf))) return { sync };
  const resume = function* (input: unknown, run: Run): Generator<undefined, unknown, undefined> {
    let inputSequence: unknown[] | undefined = Array.isArray(input) && !absolute ? input : undefined;
    let resultSequence: unknown;
    for (const step of steps) {
      if (step.whole) {
        const whole = inputSequence ?? createSequence(input);
        resultSequence = step.evaluate.resume ? yield* step.evaluate.resume(whole, run) : step.evaluate.sync(whole, run);
      } else if (inputSequence === undefined) resultSequence = yield* resumeStepOnOne(step, input, run);
      else resultSequence = yield* resumeStepOnEach(step, inputSequence, run);
      if (resultSequence === undefined || (resultSequence as unknown[]).length === 0) break;
      if (!Array.isArray(resultSequence)) bail();
      inputSequence = resultSequence;
    }
    return keepSingletonArray ? keepSingleton(resultSequence) : resultSequence;
  };
  return { sync, resume };
}

/** `[]` on a path: the result is kept as an array even when it holds one item (as jsonata does, even on undefined: a TypeError, so a bail). */
function keepSingleton(resultSequence: unknown): unknown {
  let kept = resultSequence as Sequence;
  if (Array.isArray(kept) && kept.cons && !kept.sequence) kept = createSequence(kept);
  kept.keepSingleton = true;
  return kept;
}

/** evaluateStep over a sequence: the step on every item, then the results flattened one level. */
function stepOnEach(step: Step, input: unknown[], run: Run): unknown {
  if (input.length === 1) return stepOnOne(step, input[0], run);
  const result = createSequence();
  for (const item of input) {
    let value = step.evaluate.sync(item, run);
    for (const stage of step.stages) value = stage.sync(value, run);
    if (value !== undefined) pushItem(result, value, run);
  }
  return flattened(result, step.last, run);
}

function* resumeStepOnEach(step: Step, input: unknown[], run: Run): Generator<undefined, unknown, undefined> {
  if (input.length === 1) return yield* resumeStepOnOne(step, input[0], run);
  const result = createSequence();
  for (const item of input) {
    if (due(run, step.position)) yield;
    let value = step.evaluate.resume ? yield* step.evaluate.resume(item, run) : step.evaluate.sync(item, run);
    for (const stage of step.stages) value = stage.resume ? yield* stage.resume(value, run) : stage.sync(value, run);
    if (value !== undefined) pushItem(result, value, run);
  }
  return flattened(result, step.last, run);
}

function flattened(result: Sequence, last: boolean, run: Run): unknown {
  if (last && result.length === 1 && Array.isArray(result[0]) && !isSequence(result[0])) return result[0];
  const flat = createSequence();
  for (const value of result) {
    if (!Array.isArray(value) || (value as Partial<Sequence>).cons) pushItem(flat, value, run);
    else for (const item of value) pushItem(flat, item, run);
  }
  return flat;
}

/** evaluateStep over a sequence of one item, without the intermediate sequence. */
function stepOnOne(step: Step, item: unknown, run: Run): unknown[] {
  let value = step.evaluate.sync(item, run);
  for (let i = 0; i < step.stages.length; i++) value = step.stages[i]!.sync(value, run);
  return oneResult(value, step.last, run);
}

function* resumeStepOnOne(step: Step, item: unknown, run: Run): Generator<undefined, unknown[], undefined> {
  let value = step.evaluate.resume ? yield* step.evaluate.resume(item, run) : step.evaluate.sync(item, run);
  for (const stage of step.stages) value = stage.resume ? yield* stage.resume(value, run) : stage.sync(value, run);
  return oneResult(value, step.last, run);
}

function oneResult(value: unknown, last: boolean, run: Run): unknown[] {
  if (value === undefined) return createSequence();
  if (last && Array.isArray(value) && !isSequence(value)) return value;
  if (!Array.isArray(value) || (value as Partial<Sequence>).cons) return createSequence(value);
  const flat = createSequence();
  for (let i = 0; i < value.length; i++) pushItem(flat, value[i], run);
  return flat;
}

/** evaluateFilter: `[n]` picks by index (negative from the end); any other predicate keeps the items it is true for, or whose index it names. */
export function compileFilter(stage: { type: string; expr: AstNode }, child: Child): Compiled {
  if (stage.type !== 'filter') throw new NotInSubset(`stage ${stage.type}`);
  const predicate = stage.expr;
  if (predicate.type === 'number') {
    const literal = predicate.value as number;
    return {
      sync: (value) => {
        const input = Array.isArray(value) ? value : createSequence(value);
        let index = Math.floor(literal);
        if (index < 0) index = input.length + index;
        const item = input[index];
        if (item === undefined) return createSequence();
        if (Array.isArray(item)) return item;
        return createSequence(item);
      },
      leaf: true,
    };
  }
  const evaluate = child(predicate);
  const sync = (value: unknown, run: Run): unknown => {
    const input = Array.isArray(value) ? value : createSequence(value);
    const results = createSequence();
    for (let index = 0; index < input.length; index++) keepIfSelected(results, input, index, evaluate.sync(input[index], run), run);
    return results;
  };
  // A predicate that is a leaf looks at its item only: the filter's work is proportional to the items.
  if (evaluate.leaf) return { sync, leaf: true };
  const position = predicate.position;
  return {
    sync,
    resume: function* (value, run) {
      const input = Array.isArray(value) ? value : createSequence(value);
      const results = createSequence();
      for (let index = 0; index < input.length; index++) {
        if (due(run, position)) yield;
        const item = input[index];
        keepIfSelected(results, input, index, evaluate.resume ? yield* evaluate.resume(item, run) : evaluate.sync(item, run), run);
      }
      return results;
    },
  };
}

/** One item of a filter: kept when the predicate's value is true, or is a number (or numbers) naming its index. */
function keepIfSelected(results: Sequence, input: unknown[], index: number, value: unknown, run: Run): void {
  const item = input[index];
  let res = value;
  if (isNumeric(res)) res = [res];
  if (isArrayOfNumbers(res)) {
    for (const number of res as number[]) {
      let at = Math.floor(number);
      if (at < 0) at = input.length + at;
      if (at === index) pushItem(results, item, run);
    }
  } else if (toBoolean(res)) pushItem(results, item, run);
}

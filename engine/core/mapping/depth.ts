/**
 * MAPPING_MAX_DEPTH as nesting, on one counter per evaluation.
 *
 * jsonata 2.2.2 counts its `stack` guardrail on one counter per evaluation,
 * up on entry to every evaluation step and down on exit, but evaluates the
 * members of an array constructor and the values of an object constructor
 * or a grouping concurrently (Promise.all): every member enters before the
 * first one leaves, so the counter adds the members of a literal up, and how
 * far it gets depends on how their steps interleave. An object of about 100
 * paths reached the default of 200, though it nests a few levels, and the
 * fast path, which counts nesting, answered it.
 *
 * The gateway counts instead (jsonata's own `stack` option is left unset):
 * the guard's entry hook runs the members of one literal one after another
 * (member i+1 waits until member i has left), so only one chain of steps is
 * under way at any time, and the counter is the nesting depth of the step
 * running: the same number jsonata counts for an expression without literals,
 * whatever a literal's width and whatever the timing. The results are the
 * same (members are independent; jsonata awaits them all before it builds
 * the value), and a failing member now stops its literal at once.
 *
 * How it finds the members: jsonata enters a literal's node (unary `[` or
 * `{`, or a node with a grouping) before it starts its members, and starts
 * them all in one synchronous run, each calling the entry hook before its
 * first await. So the node is registered on entry (its members remembered),
 * and a member entered right after a member of the same literal, with no
 * other hook call between, is the next of the same start.
 */
export interface DepthState {
  depth: number;
  /** Hook calls so far: a member entered right after another of the same literal has the next number. */
  calls: number;
  last: { site: object; call: number; done: Promise<void> } | undefined;
  /** Per literal, the members under way (innermost last), each with what lets its next sibling start. */
  running: Map<object, Array<() => void>>;
}

export function newDepthState(): DepthState {
  return { depth: 0, calls: 0, last: undefined, running: new Map() };
}

type Node = { type?: string; value?: unknown; expressions?: unknown[]; lhs?: unknown[]; group?: { lhs?: unknown[] } };

/** A member node -> its literal (the array of its siblings' expressions, or the grouping). */
const MEMBER_OF = new WeakMap<object, object>();
const REGISTERED = new WeakSet<object>();

function register(node: Node): void {
  if (REGISTERED.has(node)) return;
  REGISTERED.add(node);
  if (node.type === 'unary' && node.value === '[' && Array.isArray(node.expressions)) {
    for (const member of node.expressions) if (typeof member === 'object' && member !== null) MEMBER_OF.set(member, node.expressions);
  }
  if (node.type === 'unary' && node.value === '{' && Array.isArray(node.lhs)) pairs(node.lhs, node.lhs);
  if (node.group && Array.isArray(node.group.lhs)) pairs(node.group.lhs, node.group);
}

function pairs(lhs: unknown[], site: object): void {
  for (const pair of lhs) {
    const value = Array.isArray(pair) ? (pair[1] as unknown) : undefined;
    if (typeof value === 'object' && value !== null) MEMBER_OF.set(value, site);
  }
}

/**
 * On entry to a step: `start` counts it in (and may throw the depth error,
 * or return a promise: the guard's slice); for a literal's member after the
 * first, only once its previous sibling has left.
 */
export function enterStep(state: DepthState, node: object, start: () => Promise<void> | undefined): Promise<void> | undefined {
  const call = ++state.calls;
  register(node as Node);
  const site = MEMBER_OF.get(node);
  if (!site) return start();
  const previous = state.last && state.last.site === site && state.last.call === call - 1 ? state.last.done : undefined;
  let release!: () => void;
  const done = new Promise<void>((resolve) => (release = resolve));
  state.last = { site, call, done };
  const begin = (): Promise<void> | undefined => {
    let running = state.running.get(site);
    if (!running) state.running.set(site, (running = []));
    running.push(release);
    return start();
  };
  return previous ? previous.then(begin) : begin();
}

/** On exit from a step (jsonata calls the exit hook only when the step succeeded). */
export function leaveStep(state: DepthState, node: object): void {
  state.calls++;
  state.depth--;
  const site = MEMBER_OF.get(node);
  if (site) state.running.get(site)?.pop()?.();
}

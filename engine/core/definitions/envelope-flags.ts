/**
 * The load-time half of the envelope's boolean flags (the run-time rule is
 * engine/core/run/envelope-flags.ts): where a response mapping can be
 * seen, from its JSONata tree alone, to give `success`,
 * `meta.authenticated` or `meta.tooManyRequests` something that is not a
 * boolean. Only what is certain: a string or number literal, or an object or
 * array constructor, written as the flag's value (or as a branch of a
 * condition, or the last step of a block there) in an object constructor the
 * mapping returns (itself possibly a branch or a block's last step). Paths,
 * variables, functions and null are never reported: their value is not
 * known before a run (and null is a way of not saying).
 */
export interface EnvelopeFlagFinding {
  /** 0-based offset in the expression of the flag's key. */
  offset: number;
  message: string;
}

interface Node {
  type?: unknown;
  value?: unknown;
  position?: unknown;
  lhs?: unknown;
  then?: unknown;
  else?: unknown;
  expressions?: unknown;
}

const NONE: readonly EnvelopeFlagFinding[] = Object.freeze([]);

export function envelopeFlagFindings(ast: unknown): readonly EnvelopeFlagFinding[] {
  const findings: EnvelopeFlagFinding[] = [];
  for (const envelope of results(ast)) {
    for (const [key, value] of pairs(envelope)) {
      if (key.value === 'success') report(findings, key, value, 'success');
      if (key.value !== 'meta') continue;
      for (const meta of results(value)) {
        for (const [flag, flagValue] of pairs(meta)) {
          if (flag.value === 'authenticated' || flag.value === 'tooManyRequests') report(findings, flag, flagValue, `meta.${flag.value}`);
        }
      }
    }
  }
  return findings.length ? findings.sort((a, b) => a.offset - b.offset) : NONE;
}

function report(findings: EnvelopeFlagFinding[], key: Node, value: unknown, name: string): void {
  for (const literal of results(value, true)) {
    const what = describe(literal);
    if (!what) continue;
    const end = typeof key.position === 'number' ? key.position : 0;
    findings.push({
      offset: Math.max(0, end - String(key.value).length - 2),
      message: `${name} is ${what}: the engine reads only true or false there, and anything else counts as not said (the status decides); write a boolean or a condition (status = 401 ? false)`,
    });
  }
}

/** What a node is when it is certainly not a boolean; undefined otherwise. */
function describe(node: Node): string | undefined {
  if (node.type === 'string') return `the string ${JSON.stringify(node.value)}`;
  if (node.type === 'number') return `the number ${String(node.value)}`;
  if (node.type === 'unary' && node.value === '{') return 'an object';
  if (node.type === 'unary' && node.value === '[') return 'an array';
  return undefined;
}

/**
 * The nodes whose value an expression's value can be: itself, or the
 * branches of a condition, or a block's last step. Object constructors only,
 * unless `any`.
 */
function results(node: unknown, any = false): Node[] {
  const found: Node[] = [];
  const stack: unknown[] = [node];
  while (stack.length) {
    const current = stack.pop();
    if (typeof current !== 'object' || current === null) continue;
    const n = current as Node;
    if (n.type === 'condition') {
      stack.push(n.then, n.else);
    } else if (n.type === 'block' && Array.isArray(n.expressions)) {
      stack.push(n.expressions.at(-1));
    } else if (any || (n.type === 'unary' && n.value === '{')) {
      found.push(n);
    }
  }
  return found;
}

/** The key and value of each pair of an object constructor whose key is a string literal. */
function pairs(object: Node): [Node, unknown][] {
  if (!Array.isArray(object.lhs)) return [];
  return (object.lhs as unknown[]).flatMap((pair) => {
    if (!Array.isArray(pair) || pair.length !== 2) return [];
    const key = pair[0] as Node | null;
    return key && typeof key === 'object' && key.type === 'string' ? [[key, pair[1]] as [Node, unknown]] : [];
  });
}

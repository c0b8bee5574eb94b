import fc from 'fast-check';

/**
 * JSONata expressions generated from the fast path's subset grammar (paths,
 * predicates, `[]`, constructors, operators, conditions, blocks, the
 * built-ins) over the field names FIELDS: the fast path's differential test
 * evaluates them, the syntax check's compares their parse with jsonata's.
 */
export const FIELDS = ['a', 'b', 'c', 'd e', 'x-y'];
const field = fc.constantFrom(...FIELDS).map((name) => (/^[a-z]$/.test(name) ? name : name.includes(' ') ? `\`${name}\`` : `"${name}"`));

export const expression: fc.Arbitrary<string> = fc.letrec<{ expr: string; path: string; step: string }>((tie) => ({
  expr: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    tie('path'),
    fc.constantFrom('1', '3', '-2', '0.5', '0.1', '"s"', '"A b"', 'true', 'false', 'null', '$', '$$', '$v', '$nobody', '[]', '{}'),
    fc.tuple(tie('expr'), fc.constantFrom('+', '-', '*', '/', '%', '=', '!=', '<', '<=', '>', '>=', '&', 'and', 'or', 'in'), tie('expr')).map(([l, op, r]) => `(${l} ${op} ${r})`),
    tie('expr').map((e) => `-(${e})`),
    fc.tuple(tie('expr'), tie('expr'), fc.option(tie('expr'))).map(([c, t, e]) => (e === null ? `(${c} ? ${t})` : `(${c} ? ${t} : ${e})`)),
    fc.array(fc.tuple(fc.constantFrom('k', 'l', 'a'), tie('expr')), { maxLength: 3 }).map((pairs) => `{ ${pairs.map(([k, v], i) => `"${k}${i}": ${v}`).join(', ')} }`),
    fc.array(tie('expr'), { maxLength: 3 }).map((items) => `[${items.join(', ')}]`),
    fc.tuple(tie('expr'), tie('expr')).map(([x, y]) => `(${x}; ${y})`),
    fc
      .tuple(fc.constantFrom('exists', 'count', 'string', 'lowercase', 'uppercase', 'trim', 'length', 'not', 'boolean', 'number', 'merge', 'join', 'fromMillis'), fc.array(tie('expr'), { maxLength: 2 }))
      .map(([f, args]) => `$${f}(${args.join(', ')})`),
  ),
  path: fc.tuple(fc.oneof(field, fc.constantFrom('$', '$$', '$v')), fc.array(tie('step'), { maxLength: 3 }), fc.boolean()).map(([first, steps, keep]) => `${[first, ...steps].join('.')}${keep ? '[]' : ''}`),
  step: fc.oneof(
    { depthSize: 'small' },
    field,
    field.map((f) => `${f}[]`),
    fc.tuple(field, fc.constantFrom('0', '-1', '1', '1.5')).map(([f, i]) => `${f}[${i}]`),
    fc.tuple(field, tie('expr')).map(([f, p]) => `${f}[${p}]`),
    tie('expr').map((e) => `(${e})`),
    fc.array(tie('expr'), { minLength: 1, maxLength: 2 }).map((items) => `[${items.join(', ')}]`),
    fc.tuple(fc.constantFrom('k', 'a'), tie('expr')).map(([k, v]) => `{ "${k}": ${v} }`),
    fc.constantFrom('$string()', '$uppercase()', '$exists(a)', '$count(b)', '$not()'),
  ),
})).expr;

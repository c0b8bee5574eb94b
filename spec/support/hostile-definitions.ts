/**
 * Hostile definition files, shared by the definitions spec
 * (spec/core/definitions/hostile-files.spec.ts) and the definitions attack
 * (scripts/attack/definitions.attack.ts): each is an action file of the
 * valid fixture's `acme` app.
 */

/** A minimal list action with `rest` before its response. */
export const hostileAction = (id: string, rest = '') =>
  `id: ${id}\nslug: ${id}\nname: ${id}\noperation: list\nmethod: GET\npath: /lists\n${rest}response: '{ "success": true }'\n`;

/** "Billion laughs": 9 levels of 9 aliases, 9^9 values once expanded. The expansion passes
 * 100,000 values at the first *a4, line 13, column 10. */
export function aliasBomb(): string {
  const lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]'];
  for (let level = 1; level < 9; level++) lines.push(`a${level}: &a${level} [${Array.from({ length: 9 }, () => `*a${level - 1}`).join(', ')}]`);
  return `${hostileAction('bad')}${lines.join('\n')}\n`;
}

/** A valid action: 101 arguments, the first anchoring its data type, the other 100 aliasing it. */
export function hundredAliases(): string {
  const args = ['  - key: arg0\n    dataType: &type String\n    location: Query'];
  for (let i = 1; i <= 100; i++) args.push(`  - key: arg${i}\n    dataType: *type\n    location: Query`);
  return hostileAction('bad', `arguments:\n${args.join('\n')}\n`);
}

/** `count` properties the action schema does not define, from line 8 on. */
export function unknownKeys(count = 20_000): string {
  return `${hostileAction('bad')}${Array.from({ length: count }, (_, i) => `unknown${i}: ${i}`).join('\n')}\n`;
}

/**
 * A mapping nested 2,000 levels deep (flow style, `x: {a: {a: ...}}` on line 8), behind a 40,000-character comment on
 * line 7 so the file is large enough to be analysed on a worker thread: its analysis could not be handed back to
 * the loader, which then waited for ever.
 */
export function deepMapping(levels = 2_000): string {
  return `${hostileAction('bad')}# ${'p'.repeat(40_000)}\nx: ${'{a: '.repeat(levels)}1${'}'.repeat(levels)}\n`;
}

/** An action with `count` Query arguments (line 7 on: `arguments:`, then three lines each). */
export function manyArguments(count = 1_001): string {
  const args = Array.from({ length: count }, (_, i) => `  - key: arg${i}\n    dataType: String\n    location: Query`);
  return hostileAction('bad', `arguments:\n${args.join('\n')}\n`);
}

import type { ArgumentEntry } from '../../engine/core/definitions/index.ts';

/**
 * Made-up values a connection is created with: for each top-level argument
 * (of an auth, or of the API as host variables), the value a case of the app
 * gave for it if any (`known`), else its default, else a value of its type
 * that the connection checks accept (the first Fixed option, US, USD, a
 * number within its bounds, `walk-<key>` within maxLength). Optional
 * arguments without a known value or default are left out.
 */
export function fakeValues(args: readonly ArgumentEntry[], known: Record<string, unknown> = {}, all = true): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const arg of args) {
    if (arg.parent) continue;
    if (Object.hasOwn(known, arg.key)) values[arg.key] = known[arg.key];
    else if (arg.default !== undefined) values[arg.key] = arg.default;
    else if (arg.required || all) values[arg.key] = fakeValue(arg);
  }
  return values;
}

function fakeValue(arg: ArgumentEntry): unknown {
  switch (arg.dataType) {
    case 'Number':
      return arg.minimum ?? 1;
    case 'Boolean':
      return true;
    case 'Date':
      return '2024-01-01T00:00:00Z';
    case 'Object':
      return {};
    case 'Array':
      return [];
    case 'List': {
      const list = arg.list!;
      if (list.type === 'Fixed') return list.options[0]!.value;
      if (list.type === 'Country') return 'US';
      if (list.type === 'Currency') return 'USD';
      return `walk-${arg.key}`;
    }
    default: {
      if (arg.format === 'email') return 'walk@example.com';
      if (arg.format === 'uri') return 'https://walk.example.com';
      const text = `walk-${arg.key}`.padEnd(arg.minLength ?? 0, 'x');
      return arg.maxLength !== undefined ? text.slice(0, arg.maxLength) : text;
    }
  }
}

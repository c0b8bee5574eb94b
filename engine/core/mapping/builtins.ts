import jsonata from 'jsonata';
import type { MappingLimits } from './limits.ts';
import { jsonLongerThan, refuseSize } from './size.ts';

/**
 * The built-ins that can make a string much longer than their arguments in
 * one native call, shadowed on every guarded expression by versions that
 * check the size first and then call jsonata's own: `$pad` (a width of a
 * billion), `$join` (a hundred thousand copies of a long string) and
 * `$string` (an object that refers to another many times over). The guard's
 * exit hook (guard.ts) checks every other step's result after the fact,
 * which is enough where a step can at most add its arguments up (`&`) or
 * grow them by a constant factor ($uppercase, $encodeUrl...).
 */
type Implementation = (this: unknown, ...args: never[]) => unknown;
interface JsonataFunction {
  implementation: Implementation;
}

type Name = 'pad' | 'join' | 'string';
let ORIGINAL: Promise<Record<Name, JsonataFunction>> | undefined;

/** jsonata's own implementations, as `$pad`, `$join`, `$string` evaluate to (asked once; evaluation is async). */
function originals(): Promise<Record<Name, JsonataFunction>> {
  return (ORIGINAL ??= jsonata('{ "pad": $pad, "join": $join, "string": $string }').evaluate({}) as Promise<Record<Name, JsonataFunction>>);
}

/** jsonata's signatures of the three (jsonata.js, staticFrame.bind). */
const SIGNATURES = { pad: '<s-ns?:s>', join: '<a<s>s?:s>', string: '<x-b?:s>' } as const;

export function installSizedBuiltIns(expression: jsonata.Expression, limits: MappingLimits): void {
  const call = async (name: Name, self: unknown, args: unknown[]) => ((await originals())[name].implementation as (...a: unknown[]) => unknown).apply(self, args);
  expression.registerFunction(
    'pad',
    function (this: unknown, str: string | undefined, width: number, char?: string) {
      if (str !== undefined && Math.abs(Math.trunc(width)) > limits.maxString) refuseSize('string', limits.maxString);
      return call('pad', this, [str, width, char]);
    },
    SIGNATURES.pad,
  );
  expression.registerFunction(
    'join',
    function (this: unknown, strs: string[] | undefined, separator?: string) {
      if (strs !== undefined) {
        let total = (separator?.length ?? 0) * Math.max(0, strs.length - 1);
        for (let i = 0; i < strs.length && total <= limits.maxString; i++) total += strs[i]!.length;
        if (total > limits.maxString) refuseSize('string', limits.maxString);
      }
      return call('join', this, [strs, separator]);
    },
    SIGNATURES.join,
  );
  expression.registerFunction(
    'string',
    // `prettify = false`, as jsonata's own: a function's length is how many arguments $map and its kin pass it (value, index, array)
    function (this: unknown, arg: unknown, prettify = false) {
      // prettified JSON adds indentation per level: allow for it by checking a quarter of the budget
      if (typeof arg === 'object' && arg !== null && jsonLongerThan(arg, prettify ? limits.maxString / 4 : limits.maxString)) refuseSize('string', limits.maxString);
      return call('string', this, [arg, prettify]);
    },
    SIGNATURES.string,
  );
}

import { bail, isDeepEqual, isNumeric, toJsonataString } from './values.ts';

/**
 * jsonata's binary operators on evaluated operands (evaluateNumericExpression,
 * evaluateEqualityExpression, evaluateComparisonExpression,
 * evaluateIncludesExpression, evaluateStringConcat), with their undefined
 * rules. Every type error (T2001, T2002, T2009, T2010) is a bail: jsonata
 * raises it, with its position, when it evaluates the expression again.
 * `and`/`or` short-circuit, so they are in expressions.ts; `..` is not in the subset.
 */
export type BinaryOperator = (lhs: unknown, rhs: unknown) => unknown;

const numeric =
  (op: (a: number, b: number) => number): BinaryOperator =>
  (lhs, rhs) => {
    if (lhs !== undefined && !isNumeric(lhs)) bail();
    if (rhs !== undefined && !isNumeric(rhs)) bail();
    if (lhs === undefined || rhs === undefined) return undefined;
    return op(lhs as number, rhs as number);
  };

const comparison =
  (op: (a: number | string, b: number | string) => boolean): BinaryOperator =>
  (lhs, rhs) => {
    const comparable = (value: unknown) => value === undefined || typeof value === 'string' || typeof value === 'number';
    if (!comparable(lhs) || !comparable(rhs)) bail();
    if (lhs === undefined || rhs === undefined) return undefined;
    if (typeof lhs !== typeof rhs) bail();
    return op(lhs as number | string, rhs as number | string);
  };

export const BINARY_OPERATORS: Readonly<Record<string, BinaryOperator>> = {
  '+': numeric((a, b) => a + b),
  '-': numeric((a, b) => a - b),
  '*': numeric((a, b) => a * b),
  '/': numeric((a, b) => a / b),
  '%': numeric((a, b) => a % b),
  '=': (lhs, rhs) => (lhs === undefined || rhs === undefined ? false : isDeepEqual(lhs, rhs)),
  '!=': (lhs, rhs) => (lhs === undefined || rhs === undefined ? false : !isDeepEqual(lhs, rhs)),
  '<': comparison((a, b) => a < b),
  '<=': comparison((a, b) => a <= b),
  '>': comparison((a, b) => a > b),
  '>=': comparison((a, b) => a >= b),
  '&': (lhs, rhs) => (lhs === undefined ? '' : toJsonataString(lhs)!).concat(rhs === undefined ? '' : toJsonataString(rhs)!),
  in: (lhs, rhs) => {
    if (lhs === undefined || rhs === undefined) return false;
    const members = Array.isArray(rhs) ? rhs : [rhs];
    for (const member of members) if (member === lhs) return true;
    return false;
  },
};

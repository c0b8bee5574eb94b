import { bail, isFunction } from './values.ts';

/**
 * jsonata's function signatures (signature.js), ported for the built-ins of
 * the fast path: `<s-:s>` and the like are turned into the same regular
 * expression over one symbol per argument, and arguments are validated and
 * fixed up as jsonata does (`-`: the context stands in for a missing
 * argument; `a`: a single value becomes an array; `a<o>`: every item must
 * be an object). A mismatch (T0410, T0411, T0412) is a bail.
 */
export type Validate = (args: unknown[], context: unknown) => unknown[];

interface Param {
  regex: string;
  type: string;
  array?: boolean;
  context?: boolean;
  contextRegex?: RegExp;
  subtype?: string;
}

/** getSymbol of signature.js. */
function symbolOf(value: unknown): string {
  if (isFunction(value)) return 'f';
  switch (typeof value) {
    case 'string':
      return 's';
    case 'number':
      return 'n';
    case 'boolean':
      return 'b';
    case 'object':
      return value === null ? 'l' : Array.isArray(value) ? 'a' : 'o';
    default:
      return 'm';
  }
}

function closing(signature: string, start: number, open: string, close: string): number {
  let depth = 1;
  let position = start;
  while (position < signature.length) {
    position++;
    const symbol = signature.charAt(position);
    if (symbol === close && --depth === 0) break;
    if (symbol === open) depth++;
  }
  return position;
}

function parseParams(signature: string): Param[] {
  const params: Param[] = [];
  let previous: Param | undefined;
  const add = (param: Param) => {
    params.push(param);
    previous = param;
  };
  for (let position = 1; position < signature.length; position++) {
    const symbol = signature.charAt(position);
    if (symbol === ':') break;
    switch (symbol) {
      case 's':
      case 'n':
      case 'b':
      case 'l':
      case 'o':
        add({ regex: `[${symbol}m]`, type: symbol });
        break;
      case 'a':
        add({ regex: '[asnblfom]', type: symbol, array: true });
        break;
      case 'x':
        add({ regex: '[asnblfom]', type: symbol });
        break;
      case 'j':
        add({ regex: '[asnblom]', type: symbol });
        break;
      case '-':
        previous!.context = true;
        previous!.contextRegex = new RegExp(previous!.regex);
        previous!.regex += '?';
        break;
      case '?':
      case '+':
        previous!.regex += symbol;
        break;
      case '(': {
        const end = closing(signature, position, '(', ')');
        const choice = signature.substring(position + 1, end);
        if (choice.includes('<')) throw new Error(`unsupported signature ${signature}`);
        add({ regex: `[${choice}m]`, type: `(${choice})` });
        position = end;
        break;
      }
      case '<': {
        if (previous?.type !== 'a') throw new Error(`unsupported signature ${signature}`);
        const end = closing(signature, position, '<', '>');
        previous.subtype = signature.substring(position + 1, end);
        position = end;
        break;
      }
      default:
        throw new Error(`unsupported signature ${signature}`);
    }
  }
  return params;
}

export function parseSignature(signature: string): Validate {
  const params = parseParams(signature);
  const regex = new RegExp(`^${params.map((param) => `(${param.regex})`).join('')}$`);
  return (args, context) => {
    const valid = regex.exec(args.map(symbolOf).join(''));
    if (!valid) bail(); // T0410
    const validated: unknown[] = [];
    let argIndex = 0;
    params.forEach((param, index) => {
      const match = valid[index + 1]!;
      if (match === '') {
        if (param.context && param.contextRegex) {
          if (!param.contextRegex.test(symbolOf(context))) bail(); // T0411
          validated.push(context);
        } else {
          validated.push(args[argIndex]);
          argIndex++;
        }
        return;
      }
      for (const single of match.split('')) {
        let arg = args[argIndex];
        if (param.type === 'a') {
          if (single === 'm') arg = undefined;
          else {
            let arrayOK = true;
            if (param.subtype !== undefined) {
              if (single !== 'a' && match !== param.subtype) arrayOK = false;
              else if (single === 'a') {
                const items = arg as unknown[];
                if (items.length > 0) {
                  const itemType = symbolOf(items[0]);
                  if (itemType !== param.subtype.charAt(0)) arrayOK = false;
                  else arrayOK = items.every((item) => symbolOf(item) === itemType);
                }
              }
            }
            if (!arrayOK) bail(); // T0412
            if (single !== 'a') arg = [arg];
          }
        }
        validated.push(arg);
        argIndex++;
      }
    });
    return validated;
  };
}

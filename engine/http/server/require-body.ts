import { validationError } from '../../platform/errors/index.ts';
import type { AppContext } from './context.ts';

/** The parsed JSON body of a route that needs one; 400 naming `body` when the request had none. */
export function requireBody(ctx: AppContext): unknown {
  if (ctx.state.body === undefined) {
    throw validationError([{ field: 'body', rule: 'required', message: 'a JSON object is required' }]);
  }
  return ctx.state.body;
}

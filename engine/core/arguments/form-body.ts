import type { ActionEntry, AppVersion } from '../definitions/snapshot.ts';

/** How an array is written in a form body: an API's or a Body argument's `arrayStyle`. */
export type ArrayStyle = 'Indices' | 'Brackets' | 'Repeat' | 'Comma';

/** The array styles of one action's form body: the API's, and, by their path in the body (dots nest), the fields whose argument names its own. */
export interface FormArrays {
  style: ArrayStyle;
  fields: ReadonlyMap<string, ArrayStyle>;
}

const cache = new WeakMap<ActionEntry, FormArrays>();

/** The form array styles of an action of `version`, worked out once per action. */
export function formArraysOf(version: AppVersion, action: ActionEntry): FormArrays {
  let found = cache.get(action);
  if (!found) {
    const fields = new Map<string, ArrayStyle>();
    for (const arg of [...version.api.arguments, ...action.arguments]) {
      if (arg.arrayStyle !== undefined && arg.location === 'Body' && arg.parent === undefined) fields.set(arg.externalKey ?? arg.key, arg.arrayStyle);
    }
    cache.set(action, (found = { style: version.api.definition.arrayStyle ?? 'Indices', fields }));
  }
  return found;
}

/**
 * A form body (application/x-www-form-urlencoded) from the built body: objects
 * as `address[line1]=…` (Rails, PHP, Stripe), arrays of scalars in the style
 * of their field (its argument's arrayStyle, else the API's):
 *
 *   Indices  o:tag[0]=a&o:tag[1]=b
 *   Brackets o:tag[]=a&o:tag[]=b
 *   Repeat   o:tag=a&o:tag=b          (Mailgun)
 *   Comma    o:tag=a,b
 *
 * An array holding objects or arrays is written with indices whatever the
 * style (no other style can say where one item ends). null and undefined
 * are left out, as they always were.
 */
export function formBody(body: Record<string, unknown>, arrays: FormArrays): string {
  const form = new URLSearchParams();
  for (const [key, value] of Object.entries(body)) append(form, key, key, value, arrays);
  return form.toString();
}

/** `key` is the form field's name so far, `path` the value's place in the body (object members joined by dots) that names a field's style. */
function append(form: URLSearchParams, key: string, path: string, value: unknown, arrays: FormArrays): void {
  if (value === null || value === undefined) return;
  if (Array.isArray(value)) {
    const style = arrays.fields.get(path) ?? arrays.style;
    const scalars = value.every((item) => item === null || typeof item !== 'object');
    if (!scalars || style === 'Indices') {
      value.forEach((item, i) => append(form, `${key}[${i}]`, `${path}[${i}]`, item, arrays));
      return;
    }
    const items = value.filter((item) => item !== null && item !== undefined).map(String);
    if (style === 'Comma') form.append(key, items.join(','));
    else for (const item of items) form.append(style === 'Brackets' ? `${key}[]` : key, item);
  } else if (typeof value === 'object') {
    for (const [member, item] of Object.entries(value)) append(form, `${key}[${member}]`, `${path}.${member}`, item, arrays);
  } else {
    form.append(key, String(value));
  }
}

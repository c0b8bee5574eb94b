import type { JsonValue, QueryValue } from './types.ts';

export type { QueryValue };


/**
 * The request body as bytes, by the request's Content-Type: a form
 * (`application/x-www-form-urlencoded`) from a flat object, a string as it is
 * for any other non-JSON type, and JSON otherwise (Content-Type set to
 * `application/json` when the caller gave none).
 */
export function encodeBody(body: JsonValue | undefined, headers: Record<string, string>): string | undefined {
  if (body === undefined) return undefined;
  const type = headers['content-type'];
  if (type === undefined) {
    headers['content-type'] = 'application/json';
    return JSON.stringify(body);
  }
  if (/^application\/x-www-form-urlencoded\b/i.test(type) && body !== null && typeof body === 'object' && !Array.isArray(body)) {
    const form = new URLSearchParams();
    for (const [key, value] of Object.entries(body)) appendFormField(form, key, value);
    return form.toString();
  }
  if (typeof body === 'string' && !isJsonType(type)) return body;
  return JSON.stringify(body);
}

/**
 * Nested values in a form the way Rails, PHP and Stripe read them:
 * `address[line1]=…` for an object member, `items[0]=…` for an array item
 * (`items[0][price]=…` for an object in an array). null and undefined are left out.
 */
function appendFormField(form: URLSearchParams, key: string, value: JsonValue | undefined): void {
  if (value === null || value === undefined) return;
  if (Array.isArray(value)) {
    value.forEach((item, i) => appendFormField(form, `${key}[${i}]`, item));
  } else if (typeof value === 'object') {
    for (const [member, item] of Object.entries(value)) appendFormField(form, `${key}[${member}]`, item);
  } else {
    form.append(key, String(value));
  }
}

/** application/json, text/json and any +json type (application/problem+json, application/vnd.api+json, ...). */
export function isJsonType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const mediaType = contentType.split(';')[0]!.trim().toLowerCase();
  return mediaType === 'application/json' || mediaType === 'text/json' || /^[a-z]+\/[^\s/]+\+json$/.test(mediaType);
}

import { GatewayError } from '../../../platform/errors/index.ts';

/** The request body codings the gateway decodes (decoded-body.ts): those of zlib and brotli. */
export const ACCEPTED_CODINGS = ['gzip', 'deflate', 'br', 'identity'] as const;
export type ContentCoding = (typeof ACCEPTED_CODINGS)[number];

/**
 * The one coding a request body is in, from its Content-Encoding header:
 * case-insensitive, `x-gzip` is `gzip` (RFC 9110, 8.4.1.3), `identity` entries
 * add nothing. An unknown coding, or more than one, is 415 naming the header
 * and the codings accepted.
 */
export function contentCoding(header: string | undefined): ContentCoding {
  const codings = (header ?? '')
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .map((coding) => (coding === 'x-gzip' ? 'gzip' : coding))
    .filter((coding) => coding !== '' && coding !== 'identity');
  if (codings.length === 0) return 'identity';
  const accepted = `accepted: ${ACCEPTED_CODINGS.join(', ')}`;
  const shown = JSON.stringify(header!.trim().slice(0, 100));
  if (codings.length > 1) throw GatewayError.of('UNSUPPORTED_MEDIA_TYPE', `Content-Encoding ${shown} is not supported: one coding at most (${accepted})`);
  const [coding] = codings as [string];
  if (!(ACCEPTED_CODINGS as readonly string[]).includes(coding)) {
    throw GatewayError.of('UNSUPPORTED_MEDIA_TYPE', `Content-Encoding ${shown} is not supported (${accepted})`);
  }
  return coding as ContentCoding;
}

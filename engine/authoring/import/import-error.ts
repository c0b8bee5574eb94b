/**
 * Bad input to `npm run import`: a file that is not an OpenAPI description,
 * a `$ref` that does not resolve, colliding operation ids, a slug in use, an
 * unknown operation or tag. The message is one line naming what and where;
 * the command exits 2 and writes nothing.
 */
export class ImportError extends Error {
  override readonly name = 'ImportError';
}

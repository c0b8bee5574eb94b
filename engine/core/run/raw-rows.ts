import { DeferredJson, deferMember, deferredMemberOf } from '../../platform/outbound/index.ts';

/**
 * An envelope's `data` as the JSON a mapping worker wrote it in (UTF-8
 * bytes of an array), with what the envelope's rules ask of it: how many
 * rows, and whether any is an empty object (a failure drops those). The
 * answer splices the bytes (envelope-json.ts), so the rows of a large
 * response are never objects on the main thread; whatever reads
 * `envelope.data` (a lookup, a redaction that found a secret, a delete's
 * id) gets the parsed array, parsed then.
 */
export class RawRows extends DeferredJson {
  constructor(
    bytes: Buffer,
    readonly rows: number,
    readonly emptyRows: boolean,
  ) {
    super(bytes);
  }
}

/** An envelope as far as its rows go (envelope.ts imports this file: not the other way round). */
interface Rows {
  data: unknown[];
}

/** Sets the envelope's data to `rows`, left unparsed (see RawRows); returns the envelope. */
export function withRawRows<E extends Rows>(envelope: E, rows: RawRows): E {
  return deferMember(envelope, 'data', rows);
}

/** The RawRows still behind `envelope.data`, if any. */
export function rawRowsOf(envelope: Rows): RawRows | undefined {
  const raw = deferredMemberOf(envelope, 'data');
  return raw instanceof RawRows ? raw : undefined;
}

/** How many rows the envelope's data has, without parsing raw ones. */
export function rowCount(envelope: Rows): number {
  return rawRowsOf(envelope)?.rows ?? (Array.isArray(envelope.data) ? envelope.data.length : 0);
}

import { ERROR_STATUS, GatewayError } from '../errors/index.ts';
import type { AddressClass } from './address-classes.ts';

/** EGRESS_DENIED: the destination is an address the egress policy refuses. Names the host and the class; never a path, query or header. */
export class EgressDeniedError extends GatewayError {
  constructor(
    readonly host: string,
    readonly address: string,
    readonly addressClass: AddressClass | 'not http(s)',
    message: string,
  ) {
    super('EGRESS_DENIED', ERROR_STATUS.EGRESS_DENIED, message, { host, address, addressClass });
    this.name = 'EgressDeniedError';
  }
}

import { expect } from 'chai';
import { GatewayError } from '../../../engine/platform/errors/index.ts';

describe('GatewayError', () => {
  it('keeps the stack of a server-side failure (5xx), which the log shows', () => {
    const error = GatewayError.of('INTERNAL_ERROR', 'broke');
    expect(error.stack!.split('\n')[0]).to.equal('GatewayError: broke');
    expect(error.stack).to.match(/\n\s+at /);
  });

  it('captures no stack for an answer to the client (4xx): it is answered, never logged with one, and capturing it cost ~4 µs a request', () => {
    const error = GatewayError.of('ACTION_NOT_FOUND', 'no such action');
    expect(error.stack).to.equal('GatewayError: no such action');
    expect(error).to.be.instanceOf(Error);
    expect(error.toBody()).to.deep.equal({ success: false, error: { code: 'ACTION_NOT_FOUND', message: 'no such action' } });
  });

  it('leaves the stack depth of other errors as it was', () => {
    const limit = Error.stackTraceLimit;
    GatewayError.of('NOT_FOUND', 'x');
    expect(Error.stackTraceLimit).to.equal(limit);
    expect(new Error('y').stack).to.match(/\n\s+at /);
  });
});

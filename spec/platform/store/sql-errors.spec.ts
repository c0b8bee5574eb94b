import { expect } from 'chai';
import { GatewayError } from '../../../engine/platform/errors/index.ts';
import { translateSqlError } from '../../../engine/platform/store/sql/sql-errors.ts';

describe('SQL store errors as the API answers them', () => {
  const translated = (code: string, message: string) => translateSqlError(Object.assign(new Error(message), { code }), 'endUsers', 5000);

  it('a full disk (53100) or memory (53200) is 503 STORE_UNAVAILABLE saying why, not a 500', () => {
    for (const [code, message] of [
      ['53100', 'could not extend file "base/5/16384": No space left on device'],
      ['53200', 'out of memory'],
      ['53300', 'sorry, too many clients already'],
    ]) {
      const error = translated(code!, message!);
      expect(error, code).to.be.instanceOf(GatewayError);
      expect((error as GatewayError).status).to.equal(503);
      expect((error as GatewayError).code).to.equal('STORE_UNAVAILABLE');
      expect((error as GatewayError).message).to.include(`${code}: ${message}`);
    }
  });

  it('passes other failures on as they are (an internal error)', () => {
    expect(translated('42P01', 'relation does not exist')).to.not.be.instanceOf(GatewayError);
  });
});

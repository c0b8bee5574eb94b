import { ensureBuilt } from '../helpers/start-command.ts';

/**
 * Mocha root hook (.mocharc.json `require`): dist/ is built once, before the
 * first test, so the specs that spawn the gateway as `npm start` runs it
 * (compiled) do not pay for the build inside their own time limit. A spec
 * file run alone builds on its first spawn instead (spawnGateway).
 */
export const mochaHooks = {
  beforeAll(this: Mocha.Context) {
    this.timeout(300_000);
    ensureBuilt();
  },
};

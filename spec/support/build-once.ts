import { ensureBuilt } from '../helpers/start-command.ts';
import { pgliteTemplateDir } from './pglite-template.ts';

/**
 * Mocha root hook (.mocharc.json `require`): dist/ is built once, before the
 * first test, so the specs that spawn the gateway as `npm start` runs it
 * (compiled) do not pay for the build inside their own time limit. A spec
 * file run alone builds on its first spawn instead (spawnGateway). The
 * embedded database every started gateway copies is made here too
 * (pglite-template.ts), once.
 */
export const mochaHooks = {
  async beforeAll(this: Mocha.Context) {
    this.timeout(300_000);
    ensureBuilt();
    process.env.PGLITE_TEMPLATE_DIR ??= await pgliteTemplateDir();
  },
};

import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../engine/config/config.ts';

/** The one-line message loadConfig refuses `env` with; fails the test when it accepts it. */
export function configProblem(env: Record<string, string>): string {
  try {
    loadConfig(env, '/srv/gw');
  } catch (error) {
    expect(error).to.be.instanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

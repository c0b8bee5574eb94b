import { expect } from 'chai';
import { loadConfig } from '../../engine/config/config.ts';
import { configProblem } from '../helpers/config-problem.ts';

describe('MCP settings (MCP_*)', () => {
  it('has the documented defaults and reads every variable', () => {
    expect(loadConfig({}).mcp).to.deep.equal({ resultMaxChars: 20_000, maxSubscriptions: 1024, maxSubscriptionsPerCompany: 256 });
    expect(loadConfig({ MCP_RESULT_MAX_CHARS: '5000', MCP_MAX_SUBSCRIPTIONS: '10', MCP_MAX_SUBSCRIPTIONS_PER_COMPANY: '3' }).mcp).to.deep.equal({ resultMaxChars: 5000, maxSubscriptions: 10, maxSubscriptionsPerCompany: 3 });
  });

  it('refuses a value out of range, naming the variable and the range', () => {
    expect(configProblem({ MCP_RESULT_MAX_CHARS: '10' })).to.match(/^MCP_RESULT_MAX_CHARS must be an integer from 1000 to 1000000/);
    expect(configProblem({ MCP_MAX_SUBSCRIPTIONS: '0' })).to.match(/^MCP_MAX_SUBSCRIPTIONS must be an integer from 1 to 100000/);
    expect(configProblem({ MCP_MAX_SUBSCRIPTIONS_PER_COMPANY: '0' })).to.match(/^MCP_MAX_SUBSCRIPTIONS_PER_COMPANY must be an integer from 1 to 100000/);
  });
});

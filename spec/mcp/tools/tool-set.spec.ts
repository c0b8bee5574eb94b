import { expect } from 'chai';
import path from 'node:path';
import { DefinitionsLoader } from '../../../engine/core/definitions/loader.ts';
import type { ConnectionRecord } from '../../../engine/platform/store/index.ts';
import { toolSetOf } from '../../../engine/mcp/tools/tool-set.ts';
import { ROOT } from '../../helpers/process.ts';
import { definitionsFor } from '../../helpers/upstream.ts';

const action = (slug: string) => `id: ${slug}\nslug: ${slug}\nname: An action slugged ${slug}\noperation: other\nmethod: POST\npath: /${slug}\nresponse: '{ "success": status < 300, "data": body }'\n`;

describe('MCP tools: the <app>_request tool beside actions that take its names', () => {
  const connection = { id: 'con_1', companyId: 'co_1', appId: 'store', appSlug: 'store', authId: 'key', authType: 'ApiKey', endUserId: null, name: 'Main store', metadata: {} } as unknown as ConnectionRecord;

  async function toolsWith(slugs: string[]): Promise<{ names: string[]; requestTool: string | undefined }> {
    const extra = Object.fromEntries(slugs.map((slug) => [`store/versions/1/actions/${slug}.yaml`, action(slug)]));
    const defs = await definitionsFor(path.join(ROOT, 'spec/fixtures/mcp'), 'http://127.0.0.1:9', extra);
    try {
      const loaded = await new DefinitionsLoader().loadDirectory(defs.dir);
      expect(loaded.ok, JSON.stringify(loaded.problems)).to.equal(true);
      const set = toolSetOf(loaded.snapshot!, [connection], { proxy: true });
      return { names: set.tools.map((t) => t.name), requestTool: [...set.targets].find(([, target]) => target.kind === 'request')?.[0] };
    } finally {
      await defs.cleanup();
    }
  }

  it('is <app>_proxy-request beside an action slugged request, and <app>_proxy-request-2, -3... when those are actions too: an API key always has it', async () => {
    const one = await toolsWith(['request']);
    expect(one.requestTool).to.equal('store_proxy-request');
    expect(one.names).to.include('store_request').and.include('store_proxy-request');

    const two = await toolsWith(['request', 'proxy-request']);
    expect(two.requestTool).to.equal('store_proxy-request-2');
    expect(two.names).to.include('store_request').and.include('store_proxy-request').and.include('store_proxy-request-2');

    const three = await toolsWith(['request', 'proxy-request', 'proxy-request-2']);
    expect(three.requestTool).to.equal('store_proxy-request-3');
  });
});

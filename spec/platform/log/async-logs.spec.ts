import { expect } from 'chai';
import { Agent, request } from 'undici';
import { spawnGateway, type GatewayProcess, killIfRunning } from '../../helpers/process.ts';
import { tempDir } from '../../helpers/temp-dir.ts';
import { eventually } from '../../support/eventually.ts';

/**
 * The gateway's own logs go through pino's asynchronous destination: lines are queued in the process and
 * written when stdout takes them. These specs stall the reader of stdout (a slow log shipper: the pipe fills)
 * and show that the gateway keeps answering, and that a SIGTERM still gets every line out, the last one last.
 */
/** A start on a machine busy with other work can take 25 s (loading 133 definition files). */
const START_MS = 60_000;

describe('asynchronous logs of the gateway process', function () {
  this.timeout(180_000);
  let cleanup: () => Promise<void>;
  let running: GatewayProcess | null = null;
  afterEach(async () => {
    await killIfRunning(running);
    running = null;
    await cleanup();
  });

  for (const stdout of ['socket', 'os-pipe'] as const) {
    it(`with stdout (${stdout === 'socket' ? "Node's socket pair" : 'a pipe, as a container runtime gives'}) not read, keeps answering; on SIGTERM every request line and then "gateway stopped" reach stdout, and it exits 0`, async () => {
      const temp = await tempDir();
      cleanup = temp.cleanup;
      running = await spawnGateway({ PORT: '0', DATA_DIR: temp.dir, BOOTSTRAP_API_KEY: 'async-logs-key-0123456789' }, START_MS, { stdout });
      const p = running;
      // The log shipper stops reading: the pipe (64 KiB) fills after a few hundred lines.
      p.stdoutStream.pause();
      const total = 1500; // about 250 KB of lines, four times what the pipe holds
      expect(await healthAnswers(p.url, total), 'every request is answered while its log lines wait').to.equal(total);

      p.child.kill('SIGTERM');
      // Reading resumes only after the signal, as a shipper catching up would.
      await new Promise((resolve) => setTimeout(resolve, 500));
      p.stdoutStream.resume();
      expect(await p.exited).to.equal(0);
      await eventually(async () => p.stdout().endsWith('\n'), Boolean, 'the last line is whole');
      const lines = p.stdout().trimEnd().split('\n').map((l) => JSON.parse(l) as { msg: string; path?: string });
      expect(lines.filter((l) => l.msg === 'request' && l.path === '/health')).to.have.length(total);
      expect(lines.at(-1)!.msg).to.equal('gateway stopped');
    });
  }

  it('with stdout not read past LOG_QUEUE_MAX_BYTES, keeps answering, drops the lines beyond it whole, and counts them in a warning once stdout is read', async () => {
    const temp = await tempDir();
    cleanup = temp.cleanup;
    running = await spawnGateway({ PORT: '0', DATA_DIR: temp.dir, BOOTSTRAP_API_KEY: 'async-logs-key-0123456789', LOG_QUEUE_MAX_BYTES: '1048576' }, START_MS);
    const p = running;
    p.stdoutStream.pause();
    const total = 8000; // about 1.4 MB of lines: more than the bound and the pipe together
    expect(await healthAnswers(p.url, total), 'every request is answered while its log lines wait').to.equal(total);
    const before = p.stdout().length;
    p.stdoutStream.resume();
    const read = () => p.stdout().slice(before).split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { level: number; msg: string; path?: string; droppedLines?: number });
    const lines = await eventually(async () => read(), (all) => all.some((l) => l.msg.startsWith('log lines dropped')), 'the warning after stdout is read again');
    const kept = lines.filter((l) => l.msg === 'request' && l.path === '/health').length;
    const warning = lines.find((l) => l.msg.startsWith('log lines dropped'))!;
    expect(warning.level).to.equal(40);
    expect(warning.msg).to.equal('log lines dropped: stdout was not read while 1048576 bytes of lines waited (LOG_QUEUE_MAX_BYTES)');
    expect(kept + warning.droppedLines!, 'every request line was either written or counted').to.equal(total);
    expect(warning.droppedLines).to.be.above(0);
  });
});

/** Sends `total` requests to /health, 50 at a time over 20 connections; answers how many were answered 200. */
async function healthAnswers(url: string, total: number): Promise<number> {
  const agent = new Agent({ connections: 20 });
  let answered = 0;
  try {
    for (let sent = 0; sent < total; sent += 50) {
      await Promise.all(
        Array.from({ length: Math.min(50, total - sent) }, async () => {
          const { statusCode, body } = await request(`${url}/health`, { dispatcher: agent, headersTimeout: 10_000, bodyTimeout: 10_000 });
          await body.text();
          if (statusCode === 200) answered++;
        }),
      );
    }
  } finally {
    await agent.close();
  }
  return answered;
}

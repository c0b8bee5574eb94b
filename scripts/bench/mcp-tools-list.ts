/**
 * `npm run bench:mcp`: what a tools/list of /mcp costs with 505 tools (5 generated apps of 100 actions and their request tools, one
 * connection each, named in Connection-Id), at the gateway: the time the request log line records (request
 * in to the last byte of the answer written), for the current revision (2026-07-28) and the 2025 one, in
 * alternating rounds; and the first list after the start (the tool set built, nothing cached). The gateway
 * runs in this process, its client too (sequential requests, one at a time). Reports figures and the load
 * average beside them; never fails on speed.
 *
 *   npm run bench:mcp                        # 10 rounds of 50 lists per revision
 *   npm run bench:mcp -- --rounds=20 --per-round=100
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { loadConfig } from '../../engine/config/config.ts';
import { startGateway } from '../../engine/gateway.ts';
import { commandLine, isEntry, usageLine } from '../../engine/platform/cli/command-line.ts';
import type { Logger } from '../../engine/platform/log/logger.ts';
import { generateTree } from './scale-tree.ts';
import { median, percentile, round, table } from './stats.ts';

export const cli = {
  command: 'npm run bench:mcp --',
  summary:
    'Measures tools/list of /mcp with 505 tools (5 apps x 100 actions and a request tool each, 5 connections) at the gateway, for the 2026-07-28 and 2025-11-25 revisions in alternating rounds, and the first list after the start. Reports figures; never fails on speed.',
  options: {
    rounds: { type: 'string' as const, value: '<n>', description: 'rounds per revision (default 10)' },
    'per-round': { type: 'string' as const, value: '<n>', description: 'tools/list requests per round (default 50)' },
  },
  examples: ['npm run bench:mcp', 'npm run bench:mcp -- --rounds=20 --per-round=100'],
};

const API_KEY = 'bench-key-0123456789abcdefghij';
const APPS = 5;
const ACTIONS = 100;
/** Each app's actions and its <app>_request tool (an API key's scope has the proxy). */
const TOOLS = APPS * (ACTIONS + 1);

async function tempDir(prefix: string): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
  return { dir, cleanup: () => fs.rm(dir, { recursive: true, force: true }) };
}

/** The request log's durationMs of each /mcp line, in order. */
function durationsLog(): { logger: Logger; take: () => number[] } {
  let durations: number[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of String(chunk).split('\n')) {
        if (!line.includes('"path":"/mcp"')) continue;
        const ms = /"durationMs":([0-9.]+)/.exec(line);
        if (ms) durations.push(Number(ms[1]));
      }
      done();
    },
  });
  const logger = pino({ level: 'info' }, sink) as unknown as Logger;
  return {
    logger,
    take: () => {
      const taken = durations;
      durations = [];
      return taken;
    },
  };
}

function listRequest(era: 'modern' | 'legacy', id: number): { headers: Record<string, string>; body: string } {
  if (era === 'legacy') {
    return { headers: { 'mcp-protocol-version': '2025-11-25' }, body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list', params: {} }) };
  }
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  return {
    headers: { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list', params: { _meta: meta } }),
  };
}

async function main(rounds: number, perRound: number): Promise<void> {
  const defs = await tempDir('igw-bench-mcp-defs-');
  const data = await tempDir('igw-bench-mcp-data-');
  await generateTree(defs.dir, APPS, ACTIONS);
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: data.dir, DEFINITIONS_DIR: defs.dir, BOOTSTRAP_API_KEY: API_KEY, LOG_LEVEL: 'info' });
  const log = durationsLog();
  const gateway = await startGateway(config, log.logger);
  const url = `http://127.0.0.1:${gateway.port}`;
  try {
    const ids: string[] = [];
    for (let i = 1; i <= APPS; i++) {
      const created = await fetch(`${url}/v2/connections`, {
        method: 'POST',
        headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ appSlug: `app-${String(i).padStart(4, '0')}`, credentials: { apiKey: `k${i}` } }),
      });
      ids.push(((await created.json()) as { data: { id: string } }).data.id);
    }
    let id = 0;
    const list = async (era: 'modern' | 'legacy') => {
      const { headers, body } = listRequest(era, ++id);
      const started = performance.now();
      const response = await fetch(`${url}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${API_KEY}`, 'connection-id': ids.join(','), 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body,
      });
      const text = await response.text();
      const ms = performance.now() - started;
      // The 2025 revision's stateless leg answers as an SSE stream of one message; the current one as JSON.
      const json = text.startsWith('event:') ? (/^data: (.*)$/m.exec(text)?.[1] ?? '') : text;
      const tools = (JSON.parse(json) as { result?: { tools?: unknown[] } }).result?.tools?.length;
      if (response.status !== 200 || tools !== TOOLS) throw new Error(`tools/list answered ${response.status} with ${tools} tools: ${text.slice(0, 300)}`);
      return { ms, bytes: Buffer.byteLength(text) };
    };
    log.take();
    const first = await list('modern');
    const firstAtGateway = log.take()[0]!;
    for (let i = 0; i < 20; i++) await list(i % 2 ? 'modern' : 'legacy');
    log.take();
    const atGateway = { modern: [] as number[], legacy: [] as number[] };
    const roundTrip = { modern: [] as number[], legacy: [] as number[] };
    // CPU of this process (the gateway and its client together) per list: what a busy machine inflates least.
    const cpuMs = { modern: 0, legacy: 0 };
    for (let r = 0; r < rounds; r++) {
      for (const era of r % 2 ? (['legacy', 'modern'] as const) : (['modern', 'legacy'] as const)) {
        const cpu = process.cpuUsage();
        for (let i = 0; i < perRound; i++) roundTrip[era].push((await list(era)).ms);
        const used = process.cpuUsage(cpu);
        cpuMs[era] += (used.user + used.system) / 1000;
        atGateway[era].push(...log.take());
      }
    }
    const row = (label: string, values: number[]) => {
      const sorted = Float64Array.from(values).sort();
      return [label, values.length, round(median(values)), round(percentile(sorted, 95)), round(percentile(sorted, 99)), round(sorted[sorted.length - 1]!)];
    };
    process.stdout.write(
      `tools/list of ${TOOLS} tools (${first.bytes} bytes of JSON), ms; ${os.cpus().length} CPUs, load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')} at the end\n` +
        `${table(['', 'n', 'median', 'p95', 'p99', 'max'], [
          row('at the gateway, 2026-07-28', atGateway.modern),
          row('at the gateway, 2025-11-25', atGateway.legacy),
          row('round trip, 2026-07-28', roundTrip.modern),
          row('round trip, 2025-11-25', roundTrip.legacy),
        ])}\n` +
        `CPU per tools/list, the gateway and its client together (this process): ${round(cpuMs.modern / (rounds * perRound))} ms (2026-07-28), ${round(cpuMs.legacy / (rounds * perRound))} ms (2025-11-25)\n` +
        `first tools/list after the start (tool set built): ${round(firstAtGateway)} ms at the gateway, ${round(first.ms)} ms round trip\n`,
    );
  } finally {
    await gateway.stop();
    await defs.cleanup();
    await data.cleanup();
  }
}

if (isEntry(import.meta.url)) {
  const parsed = commandLine(cli);
  if (parsed) {
    const given = { rounds: parsed.values.rounds, 'per-round': parsed.values['per-round'] };
    const bad = Object.entries(given).find(([, value]) => value !== undefined && !(Number.isInteger(Number(value)) && Number(value) >= 1));
    if (bad) {
      process.stderr.write(`--${bad[0]} must be a whole number, 1 or more (got ${bad[1]})\n${usageLine(cli)}\n`);
      process.exitCode = 2;
    } else await main(Number(given.rounds ?? 10), Number(given['per-round'] ?? 50));
  }
}

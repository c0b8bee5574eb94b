/**
 * `npm run rehearse:container`: what of the Dockerfile can run without a
 * container engine, run in temporary folders. The build context is this
 * folder less .dockerignore; each stage gets a folder standing for its file
 * system (WORKDIR /app is <stage>/app, /data is <stage>/data). Its COPY
 * instructions are carried out, its `npm …` RUN commands run as written
 * (npm's cache is the user's, read with --prefer-offline), and the runtime
 * stage's CMD is started with its ENV (paths mapped, a free PORT) until its
 * HEALTHCHECK command passes; then it checks the runtime stage holds no
 * tsx, TypeScript nor esbuild, stops the gateway with SIGTERM, and checks
 * the HEALTHCHECK fails once it is gone.
 *
 * Not rehearsed, and said so: the base image (this machine's node runs
 * instead), USER (it runs as whoever runs this), VOLUME, EXPOSE, other RUN
 * commands (mkdir, chown), RUN --mount.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { commandLine, isEntry } from '../../engine/platform/cli/command-line.ts';
import { PACKAGE_ROOT } from '../../engine/platform/package-root.ts';
import { last, readDockerfile, stageEnv, type Stage } from './dockerfile.ts';

export const cli = {
  command: 'npm run rehearse:container',
  summary:
    "Runs what of the Dockerfile can run without a container engine, in temporary folders: its npm commands, its CMD until the HEALTHCHECK passes, a SIGTERM; says what it could not rehearse. Exits 1 when a step fails.",
  options: {},
  examples: ['npm run rehearse:container'],
};

const log = (line: string) => process.stdout.write(`${line}\n`);
const notRehearsed: string[] = [];

/** .dockerignore's patterns, for the context's top-level entries (a pattern with a '/' is refused: not needed so far). */
async function ignoredNames(): Promise<RegExp[]> {
  const text = await fs.readFile(path.join(PACKAGE_ROOT, '.dockerignore'), 'utf8');
  const patterns = text.split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  return patterns.map((pattern) => {
    if (pattern.includes('/') || pattern.startsWith('!')) throw new Error(`.dockerignore pattern ${pattern}: only top-level names and * are rehearsed`);
    return new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]')}$`);
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function main(): Promise<number> {
  const { stages } = readDockerfile();
  const work = await fs.mkdtemp(path.join(os.tmpdir(), 'igw-rehearse-'));
  const context = path.join(work, 'context');
  const ignored = await ignoredNames();
  await fs.cp(PACKAGE_ROOT, context, { recursive: true, filter: (source) => {
    const relative = path.relative(PACKAGE_ROOT, source);
    return relative === '' || relative.includes(path.sep) || !ignored.some((re) => re.test(relative));
  } });
  log(`context: ${context} (this folder less .dockerignore)`);
  const roots = new Map<string, string>();
  /** A path of a stage's file system, in its stand-in folder. */
  const inStage = (stage: Stage, file: string, workdir: string) => path.join(roots.get(stage.name)!, path.isAbsolute(file) ? file : path.join(workdir, file));
  let workdir = '/';
  let failed = false;
  for (const stage of stages) {
    roots.set(stage.name, path.join(work, stage.name));
    await fs.mkdir(roots.get(stage.name)!, { recursive: true });
    workdir = '/';
    log(`\n# stage ${stage.name} (FROM ${stage.base}: this machine's node ${process.version} instead)`);
    const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', npm_config_prefer_offline: 'true', ...stageEnv(stage) };
    for (const instruction of stage.instructions) {
      const { keyword, flags, rest } = instruction;
      if (keyword === 'WORKDIR') {
        workdir = rest;
        await fs.mkdir(inStage(stage, '.', workdir), { recursive: true });
      } else if (keyword === 'COPY') {
        const parts = rest.split(/\s+/);
        const dest = parts.pop()!;
        for (const source of parts) {
          const from = flags.from ? path.join(roots.get(flags.from)!, source) : path.join(context, source);
          const to = inStage(stage, dest, workdir);
          const target = dest.endsWith('/') || parts.length > 1 ? path.join(to, path.basename(from)) : to;
          await fs.cp(from, source === '.' ? to : target, { recursive: true });
        }
        log(`COPY ${instruction.text}: done`);
      } else if (keyword === 'RUN' && rest.startsWith('npm ')) {
        log(`RUN ${rest}`);
        const started = Date.now();
        const run = spawnSync('sh', ['-c', rest], { cwd: inStage(stage, '.', workdir), env, stdio: ['ignore', 'inherit', 'inherit'] });
        log(`  exit ${run.status} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
        if (run.status !== 0) return 1;
      } else if (['RUN', 'USER', 'VOLUME', 'EXPOSE'].includes(keyword)) {
        notRehearsed.push(`${stage.name}: ${keyword} ${rest}`);
      }
    }
  }

  const runtime = stages.at(-1)!;
  const app = inStage(runtime, '.', workdir);
  for (const dev of ['tsx', 'typescript', 'esbuild', 'mocha']) {
    const present = await fs.stat(path.join(app, 'node_modules', dev)).then(() => true, () => false);
    log(`runtime stage node_modules/${dev}: ${present ? 'PRESENT' : 'absent'}`);
    failed ||= present;
  }
  const cmd = last(runtime, 'CMD')?.exec;
  const health = last(runtime, 'HEALTHCHECK')?.exec;
  if (!cmd || !health) throw new Error('the runtime stage has no exec-form CMD or HEALTHCHECK');
  const port = await freePort();
  const env = stageEnv(runtime);
  const mapped = Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v.startsWith('/') ? inStage(runtime, v, workdir) : v]));
  const runEnv = { PATH: process.env.PATH ?? '', ...mapped, PORT: String(port), HOST: '127.0.0.1', BOOTSTRAP_API_KEY: 'rehearsal-key-0123456789abcdef' };
  const exe = (command: string) => (command === 'node' ? process.execPath : command);
  log(`\nCMD ${JSON.stringify(cmd)} in ${app}, PORT=${port}`);
  const started = Date.now();
  const gateway = spawn(exe(cmd[0]!), cmd.slice(1), { cwd: app, env: runEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  gateway.stdout.on('data', (c) => (output += String(c)));
  gateway.stderr.on('data', (c) => (output += String(c)));
  const healthcheck = () => spawnSync(exe(health[0]!), health.slice(1), { cwd: app, env: runEnv, encoding: 'utf8' }).status;
  let healthy = false;
  while (!healthy && Date.now() - started < 60_000 && gateway.exitCode === null) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    healthy = healthcheck() === 0;
  }
  log(`HEALTHCHECK ${healthy ? `passed after ${Date.now() - started} ms` : 'never passed'}`);
  if (!healthy) log(output);
  failed ||= !healthy;
  // The first start copies the build's empty database (dist/pglite-cluster, from the build stage), never initdb:
  // initdb peaks at ~1 GB, more than a container's memory limit often allows (docs/operations.md).
  const created = /"how":"(\w+)"/.exec(output)?.[1];
  log(`first start's embedded database: ${created === 'cluster' ? 'copied from dist/pglite-cluster' : created ? `made by ${created}, not copied from dist/pglite-cluster: FAILED` : 'not reported: FAILED'}`);
  failed ||= created !== 'cluster';
  // Files served from outside dist/ (web/): the image must carry them.
  for (const page of healthy ? ['/connect', '/connect/connect.js', '/connect/connect.css', '/connect/oauth-return', '/sdk/connect.js', '/sdk/connect.mjs'] : []) {
    const status = await fetch(`http://127.0.0.1:${port}${page}`).then((r) => r.status, () => 0);
    log(`GET ${page}: ${status}`);
    failed ||= status !== 200;
  }
  gateway.kill('SIGTERM');
  const code = await new Promise<number | null>((resolve) => (gateway.exitCode !== null ? resolve(gateway.exitCode) : gateway.once('exit', resolve)));
  log(`SIGTERM: exited with ${code}`);
  const afterwards = healthcheck();
  log(`HEALTHCHECK with the gateway stopped: exit ${afterwards}`);
  failed ||= code !== 0 || afterwards === 0;

  log(`\nnot rehearsed (no container engine):\n${notRehearsed.map((n) => `  ${n}`).join('\n')}\n  FROM: the base images (this machine's node ran instead)`);
  await fs.rm(work, { recursive: true, force: true });
  log(failed ? '\nrehearsal FAILED' : '\nrehearsal passed');
  return failed ? 1 : 0;
}

if (isEntry(import.meta.url) && commandLine(cli)) process.exitCode = await main();

import { execFile, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * A PostgreSQL server for tests and benchmarks: a new cluster in a temporary
 * folder, on 127.0.0.1 and a free port, owned by an unprivileged user (the
 * server refuses to run as root: as root it runs as `postgres`, Debian's
 * server account), stopped and deleted by `stop`. Nothing else is touched.
 *
 *   const cluster = await startThrowawayCluster();   // cluster.url: postgres://...
 *   await cluster.stop();
 */
export interface ThrowawayCluster {
  /** postgres://igw:igw@127.0.0.1:<port>/postgres */
  url: string;
  port: number;
  dir: string;
  /** A connection string to another database of this cluster. */
  urlOf(database: string): string;
  /** Stops the server, keeping its data, as an outage would (fault specs). */
  pause(): Promise<void>;
  /** Starts the paused server again on the same port. */
  resume(): Promise<void>;
  /** Stops the server's processes where they are (SIGSTOP): connections stay open and nothing answers, as a frozen host or a network partition (fault specs). */
  freeze(): Promise<void>;
  /** Lets frozen processes go on (SIGCONT). */
  thaw(): Promise<void>;
  stop(): Promise<void>;
}

/** The folder holding initdb and pg_ctl: PG_BIN, pg_config's answer, or the newest /usr/lib/postgresql/<n>/bin; null when there is none. */
export function postgresBinaries(): string | null {
  const candidates: string[] = [];
  if (process.env.PG_BIN) candidates.push(process.env.PG_BIN);
  const pgConfig = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
  if (pgConfig.status === 0) candidates.push(pgConfig.stdout.trim());
  if (existsSync('/usr/lib/postgresql')) {
    const versions = readdirSync('/usr/lib/postgresql').filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a));
    candidates.push(...versions.map((v) => `/usr/lib/postgresql/${v}/bin`));
  }
  return candidates.find((dir) => existsSync(path.join(dir, 'initdb')) && existsSync(path.join(dir, 'pg_ctl'))) ?? null;
}

export async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export async function startThrowawayCluster(options: { port?: number; fsync?: boolean } = {}): Promise<ThrowawayCluster> {
  const bin = postgresBinaries();
  if (!bin) throw new Error('no PostgreSQL server binaries (initdb, pg_ctl): install Debian\'s postgresql, or set PG_BIN');
  const asRoot = process.getuid?.() === 0;
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'igw-pg-'));
  const data = path.join(dir, 'data');
  const password = path.join(dir, 'password');
  await fs.writeFile(password, 'igw\n');
  if (asRoot) await run('chown', ['-R', 'postgres:postgres', dir]);
  const as = (command: string, args: string[]) => (asRoot ? run('runuser', ['-u', 'postgres', '--', command, ...args]) : run(command, args));
  await as(path.join(bin, 'initdb'), ['-D', data, '-U', 'igw', '--pwfile', password, '-A', 'scram-sha-256', '-E', 'UTF8', '--locale', 'C.UTF-8', '--no-sync']);
  const port = options.port ?? (await freePort());
  const settings = [
    `-c listen_addresses=127.0.0.1`,
    `-c port=${port}`,
    `-c unix_socket_directories=${dir}`,
    `-c fsync=${options.fsync ? 'on' : 'off'}`,
    `-c max_connections=200`,
  ].join(' ');
  const start = () => as(path.join(bin, 'pg_ctl'), ['-D', data, '-l', path.join(dir, 'server.log'), '-o', settings, '-w', '-t', '60', 'start']);
  await start();
  const urlOf = (database: string) => `postgres://igw:igw@127.0.0.1:${port}/${database}`;
  let stopped = false;
  /** The postmaster (first line of postmaster.pid) and every process it started. */
  const signalAll = async (signal: 'STOP' | 'CONT') => {
    const postmaster = Number((await fs.readFile(path.join(data, 'postmaster.pid'), 'utf8')).split('\n')[0]);
    const children = spawnSync('ps', ['-o', 'pid=', '--ppid', String(postmaster)], { encoding: 'utf8' }).stdout.split('\n').map(Number).filter((pid) => pid > 0);
    for (const pid of [postmaster, ...children]) process.kill(pid, `SIG${signal}`);
  };
  return {
    url: urlOf('postgres'),
    port,
    dir,
    urlOf,
    async pause() {
      await as(path.join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']);
    },
    async resume() {
      await start();
    },
    async freeze() {
      await signalAll('STOP');
    },
    async thaw() {
      await signalAll('CONT');
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await as(path.join(bin, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', 'stop']).catch(() => {});
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}

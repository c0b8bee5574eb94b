import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

/**
 * A pipe of the operating system (what a container runtime or a shell hands a process as its stdout), for a
 * child's stdio: Node's own `stdio: 'pipe'` is a socket pair, not a pipe. Made with mkfifo(1) in `dir`;
 * `writeFd` goes to the child (close it here once it is spawned), `readable` reads the other end (paused
 * until a 'data' listener or resume()). `nonBlockingWrite`: the write end opened O_NONBLOCK, as pipe-writer.ts opens stdout.
 */
export function osPipe(dir: string, options: { nonBlockingWrite?: boolean } = {}): { writeFd: number; readable: net.Socket } {
  const fifo = path.join(dir, `pipe-${process.pid}-${Math.random().toString(36).slice(2)}`);
  execFileSync('mkfifo', ['-m', '600', fifo]);
  // A FIFO opened for reading without O_NONBLOCK waits for a writer; non-blocking, the write end can then be opened at once.
  const readFd = fs.openSync(fifo, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  const writeFd = fs.openSync(fifo, fs.constants.O_WRONLY | (options.nonBlockingWrite ? fs.constants.O_NONBLOCK : 0));
  fs.unlinkSync(fifo);
  return { writeFd, readable: new net.Socket({ fd: readFd, readable: true, writable: false }) };
}

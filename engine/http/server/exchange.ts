import type http from 'node:http';
import type { Socket } from 'node:net';
import type { AppState } from './context.ts';

/**
 * What the edges of a request (its log line, its metrics, a run's facts and
 * stop, the error answer) read of it: a Koa context is one, and so is the
 * plain object the run lane (runs/run-lane.ts) serves a run with, off Koa.
 */
export interface Exchange {
  readonly method: string;
  /** The path, without the query string. */
  readonly path: string;
  /** The answer's status, once decided. */
  status: number;
  readonly state: AppState;
  readonly req: http.IncomingMessage;
  readonly res: http.ServerResponse;
  readonly socket: Socket;
}

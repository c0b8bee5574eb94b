import http from 'node:http';
import type { TestGateway } from '../../helpers/gateway.ts';
import { expectDocumentedIfDescribed } from '../../helpers/openapi.ts';

export interface ProxyAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The body as text, and parsed when it is JSON. */
  text: string;
  body: any;
}

/**
 * One request to the gateway with the path exactly as given (fetch would
 * resolve `..` and `%2e` before sending; http.request does not), answered
 * whole; held to the OpenAPI documents as `call` holds its answers.
 */
export function send(
  gw: Pick<TestGateway, 'url' | 'apiKey'>,
  method: string,
  path: string,
  options: { headers?: Record<string, string | string[]>; body?: string | Buffer; auth?: string | null } = {},
): Promise<ProxyAnswer> {
  const { port } = new URL(gw.url);
  const headers: Record<string, string | string[]> = { ...options.headers };
  const auth = options.auth === undefined ? gw.apiKey : options.auth;
  if (auth !== null) headers.authorization = `Bearer ${auth}`;
  if (options.body !== undefined) headers['content-length'] = String(Buffer.byteLength(options.body));
  return new Promise((resolve, reject) => {
    const request = http.request({ host: '127.0.0.1', port, method, path, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        try {
          body = text ? JSON.parse(text) : undefined;
        } catch {
          /* not JSON */
        }
        const answer = { status: response.statusCode!, headers: response.headers, text, body };
        expectDocumentedIfDescribed(method, path, { ...answer, headers: response.headers });
        resolve(answer);
      });
    });
    request.on('error', reject);
    request.end(options.body);
  });
}

import { MockAgent } from 'undici';
import type { Exchange } from '../../engine/authoring/case-file.ts';

/**
 * A fake upstream for a gateway under test (its outbound dispatcher): it
 * answers with the recorded responses of offline cases (`.test.yaml`)
 * served with `serve`. Each request takes the first served exchange not yet
 * used whose recorded method and URL (origin and path) match, or that
 * records neither; a request nothing matches is refused and kept in
 * `unanswered`. Nothing reaches a real host.
 */
export class RecordedNetwork {
  readonly agent = new MockAgent();
  /** `METHOD url` of each request answered. */
  readonly answered: string[] = [];
  /** `METHOD url` of each request no served exchange matched. */
  readonly unanswered: string[] = [];
  private pending: Exchange[] = [];

  constructor() {
    this.agent.disableNetConnect();
    this.agent
      .get(() => true)
      .intercept({ path: () => true, method: () => true })
      .reply((options) => this.answer(options as unknown as { origin: string | URL; path: string; method: string }))
      .persist();
  }

  /** From now on, answer with these exchanges (in place of any not used yet). */
  serve(exchanges: readonly Exchange[]): void {
    this.pending = [...exchanges];
  }

  private answer(options: { origin: string | URL; path: string; method: string }) {
    const url = new URL(options.path, String(options.origin));
    const sent = `${options.method.toUpperCase()} ${url.origin}${url.pathname}`;
    const index = this.pending.findIndex((exchange) => {
      const { method, url: recorded } = exchange.request ?? {};
      return (method === undefined || method.toUpperCase() === options.method.toUpperCase()) && (recorded === undefined || recorded === `${url.origin}${url.pathname}`);
    });
    if (index < 0) {
      this.unanswered.push(sent);
      throw new Error(`no recorded response for ${sent}`);
    }
    const [exchange] = this.pending.splice(index, 1);
    this.answered.push(sent);
    const { status, headers, body } = exchange!.response;
    const replyHeaders: Record<string, string> = { ...headers };
    let data = '';
    if (typeof body === 'string') data = body;
    else if (body !== null && body !== undefined) {
      data = JSON.stringify(body);
      replyHeaders['content-type'] ??= 'application/json';
    }
    return { statusCode: status, data, responseOptions: { headers: replyHeaders } };
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

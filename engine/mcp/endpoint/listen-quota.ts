/**
 * How many `subscriptions/listen` streams each company holds open on this
 * gateway (MCP_MAX_SUBSCRIPTIONS_PER_COMPANY), so that one company's agents
 * cannot take every stream MCP_MAX_SUBSCRIPTIONS allows the gateway and
 * leave none for the others. A stream counts from the moment it is let
 * through until its body ends or is cancelled (the caller went away, the
 * gateway closed it); a request the SDK refuses counts for no longer than
 * its answer takes to write.
 */
export class ListenQuota {
  readonly #open = new Map<string, number>();

  constructor(readonly perCompany: number) {}

  /** Whether `body` asks for a stream: a single `subscriptions/listen` request (the SDK serves no other). */
  static asksToListen(body: unknown): boolean {
    return body !== null && typeof body === 'object' && !Array.isArray(body) && (body as { method?: unknown }).method === 'subscriptions/listen';
  }

  /** Takes one of the company's streams and gives the way to give it back (once, however often called); null (nothing taken) when the company holds all it may. */
  take(companyId: string): (() => void) | null {
    const open = this.#open.get(companyId) ?? 0;
    if (open >= this.perCompany) return null;
    this.#open.set(companyId, open + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const left = (this.#open.get(companyId) ?? 1) - 1;
      if (left <= 0) this.#open.delete(companyId);
      else this.#open.set(companyId, left);
    };
  }

  /**
   * `response` with its body watched: `giveBack` runs when the body ends, fails or is cancelled (at once when it has
   * none). `end(message)` ends it from this side (the caller is no longer valid): the listen request gets a JSON-RPC
   * error saying why, the client's stream closes, the SDK's stream is cancelled (its subscription torn down), and the
   * place is given back. Idempotent; nothing is sent after it.
   */
  static held(response: Response, giveBack: () => void, requestId: unknown = null): { response: Response; end(message: string): void } {
    if (!response.body) {
      giveBack();
      return { response, end: () => {} };
    }
    const reader = response.body.getReader();
    const streaming = (response.headers.get('content-type') ?? '').startsWith('text/event-stream');
    let ended = false;
    let controllerOf: ReadableStreamDefaultController<Uint8Array> | undefined;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controllerOf = controller;
      },
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (ended) return;
          if (done) {
            ended = true;
            giveBack();
            controller.close();
          } else controller.enqueue(value);
        } catch (error) {
          if (ended) return;
          ended = true;
          giveBack();
          controller.error(error);
        }
      },
      async cancel(reason) {
        ended = true;
        giveBack();
        await reader.cancel(reason);
      },
    });
    const end = (message: string) => {
      if (ended) return;
      ended = true;
      giveBack();
      try {
        if (streaming) {
          const error = { jsonrpc: '2.0', id: requestId, error: { code: CALLER_ENDED, message } };
          controllerOf?.enqueue(new TextEncoder().encode(`event: message\ndata: ${JSON.stringify(error)}\n\n`));
        }
        controllerOf?.close();
      } catch {
        // The client's side already closed.
      }
      reader.cancel(message).catch(() => undefined);
    };
    return { response: new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers }), end };
  }
}

/** The JSON-RPC error code of a listen stream ended because its caller is no longer valid (a server error of the implementation-defined range, as the 401 body's). */
export const CALLER_ENDED = -32000;

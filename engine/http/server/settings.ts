/** How the gateway's own HTTP server treats its clients; each comes from an environment variable (see README.md). */
export interface HttpServerSettings {
  /** REQUEST_TIMEOUT_MS: from the first byte of a request to its last (headers and body); not the time to answer it. */
  requestTimeoutMs: number;
  /** HEADERS_TIMEOUT_MS: from the first byte of a request to the end of its headers; at most requestTimeoutMs. */
  headersTimeoutMs: number;
  /** KEEP_ALIVE_TIMEOUT_MS: how long a connection may stay idle between two requests. */
  keepAliveTimeoutMs: number;
  /** MAX_HEADER_BYTES: the request line and headers together. */
  maxHeaderBytes: number;
}

export const DEFAULT_HTTP_SERVER_SETTINGS: HttpServerSettings = {
  // A legitimate body is at most 1 MiB: 30 s is enough at 35 KB/s.
  requestTimeoutMs: 30_000,
  headersTimeoutMs: 10_000,
  keepAliveTimeoutMs: 5_000,
  maxHeaderBytes: 16 * 1024,
};

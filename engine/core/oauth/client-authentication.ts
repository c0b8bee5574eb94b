/** How an OAuth client authenticates at a token endpoint: an auth's `clientAuthentication`. */
export type ClientAuthentication = 'Header' | 'Body';

/**
 * The client id and secret, where the auth says they go (RFC 6749 §2.3.1):
 * `Header`, an HTTP Basic header of the two, each form-urlencoded first;
 * `Body`, the form fields client_id and client_secret. Added to `form` and
 * `headers` in place. A client without a secret (a public client) sends its
 * id in the body whatever the mode: Basic needs a secret to mean anything.
 *
 *   authenticateClient('Header', 'app', 's3cr3t', form, headers) // headers.authorization = 'Basic YXBwOnMzY3IzdA=='
 */
export function authenticateClient(
  mode: ClientAuthentication,
  clientId: string,
  clientSecret: string | undefined,
  form: Record<string, string>,
  headers: Record<string, string>,
): void {
  if (mode === 'Header' && clientSecret) {
    headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString('base64')}`;
    return;
  }
  if (clientId) form.client_id = clientId;
  if (clientSecret) form.client_secret = clientSecret;
}

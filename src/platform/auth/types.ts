/**
 * What the HTTP layer knows about authentication: a request carries an API key (header, or
 * query on SSE routes), an Authenticator turns it into a Principal or throws the spec's
 * auth error. The keys feature implements Authenticator (src/keys/).
 */
export interface Principal {
  accountId: string;
  keyId: string;
}

export interface AuthInput {
  /** The raw key as sent, or undefined when none was sent. */
  apiKey: string | undefined;
  /** Client address (X-Forwarded-For only when PARLEY_TRUST_PROXY is on). */
  ip: string;
}

export interface Authenticator {
  authenticate(input: AuthInput): Promise<Principal>;
}

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
}

import createClient, { type Client } from 'openapi-fetch';
import type { components, operations, paths } from './schema.js';

export type { components, operations, paths };

/** The typed client over the service's public API (/api/v1 and the open documents). */
export type AccoladeClient = Client<paths>;

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface AccoladeClientOptions {
  /** The service's origin, e.g. `https://badges.example.org` (no trailing /api/v1). */
  baseUrl: string;
  /** An issuer API key, sent as `Authorization: Bearer <key>`: for servers and scripts. */
  apiKey?: string;
  /**
   * A browser signed in to the console sends its session cookie instead (`credentials:
   * 'same-origin'`) and the session's CSRF token on every state-changing request.
   */
  credentials?: 'same-origin' | 'include' | 'omit';
  csrfToken?: () => string | undefined;
  fetch?: typeof globalThis.fetch;
}

/**
 * createAccoladeClient({ baseUrl, apiKey }) for a server; createAccoladeClient({ baseUrl,
 * credentials: 'same-origin', csrfToken }) for the console. Every path, body and answer is typed
 * from client/schema.d.ts, generated from the service's OpenAPI document.
 */
export function createAccoladeClient(options: AccoladeClientOptions): AccoladeClient {
  const client = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    ...(options.apiKey ? { headers: { authorization: `Bearer ${options.apiKey}` } } : {}),
    ...(options.credentials ? { credentials: options.credentials } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const csrfToken = options.csrfToken;
  if (csrfToken) {
    client.use({
      onRequest({ request }) {
        const token = csrfToken();
        if (token && !SAFE_METHODS.has(request.method)) request.headers.set('x-csrf-token', token);
        return request;
      },
    });
  }
  return client;
}

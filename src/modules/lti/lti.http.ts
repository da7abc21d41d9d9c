import { guardedFetch } from '../accounts/sso.fetch.js';
import { type LookupFn, UnsafeTargetError } from '../webhooks/ssrf.js';

/** Every call to a platform (openid configuration, JWKS, registration, token, AGS, NRPS) ends within this. */
const TIMEOUT_MS = 10_000;

export class PlatformCallError extends Error {
  override name = 'PlatformCallError';
}

export interface PlatformAnswer {
  status: number;
  headers: Headers;
  json: unknown;
}

/**
 * Outbound HTTP to LMS platforms through the webhooks' SSRF guard (https only, public addresses,
 * the connection pinned to the checked address, at most 1 MiB read), as the console's sign-in
 * reaches identity providers. WEBHOOK_ALLOW_PRIVATE permits http and loopback, for development and
 * tests. Redirects are not followed: a platform's service URLs are the ones it announced.
 */
export function createPlatformHttp(allowPrivate: boolean, lookup: LookupFn) {
  const fetch = guardedFetch(allowPrivate, lookup);

  async function call(
    url: string,
    init: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string },
  ): Promise<PlatformAnswer> {
    let response: Response;
    try {
      response = await fetch(url, {
        method: init.method,
        headers: init.headers,
        ...(init.body !== undefined ? { body: init.body } : {}),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      } as Parameters<typeof fetch>[1]);
    } catch (err) {
      if (err instanceof UnsafeTargetError) throw new PlatformCallError(`The platform URL is refused: ${err.message}`);
      throw new PlatformCallError(`The platform could not be reached (${(err as Error).name}).`);
    }
    const text = await response.text();
    let json: unknown = null;
    if (text.length > 0) {
      try {
        json = JSON.parse(text);
      } catch {
        json = null;
      }
    }
    return { status: response.status, headers: response.headers, json };
  }

  return {
    getJson: (url: string, accept: string, bearer?: string) =>
      call(url, {
        method: 'GET',
        headers: { accept, ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
      }),
    postJson: (url: string, body: unknown, bearer?: string) =>
      call(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
        },
        body: JSON.stringify(body),
      }),
    postForm: (url: string, form: Record<string, string>) =>
      call(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams(form).toString(),
      }),
  };
}

export type PlatformHttp = ReturnType<typeof createPlatformHttp>;

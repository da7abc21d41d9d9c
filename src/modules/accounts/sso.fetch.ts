import type { LookupFunction } from 'node:net';
import type { CustomFetch } from 'openid-client';
import { type LookupFn, parseTargetUrl, type ResolvedAddress, resolveTarget } from '../webhooks/ssrf.js';

/** An identity provider's answers (discovery, keys, tokens, user info) are small JSON documents. */
const RESPONSE_CAP_BYTES = 1024 * 1024;

function pinnedLookup(target: ResolvedAddress): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
}

/**
 * The fetch the OpenID Connect client makes every request with (discovery, JWKS, token, user info):
 * the webhooks' SSRF guard first (https only, every resolved address public, the connection pinned
 * to the checked address so a second resolution cannot move it), then the answer read whole, at
 * most 1 MiB, into a standard Response. `allowPrivate` (WEBHOOK_ALLOW_PRIVATE, development and
 * tests) accepts http and loopback providers, as it does for webhook receivers.
 */
export function guardedFetch(allowPrivate: boolean, lookup: LookupFn): CustomFetch {
  return async (raw, options) => {
    const { Agent, fetch } = await import('undici');
    const url = parseTargetUrl(raw, allowPrivate);
    const target = await resolveTarget(url, allowPrivate, lookup);
    const agent = new Agent({ connections: 1, pipelining: 0, connect: { lookup: pinnedLookup(target) } });
    try {
      const response = await fetch(url, {
        method: options.method,
        headers: options.headers,
        body: options.body as string | undefined,
        redirect: 'manual',
        dispatcher: agent,
        ...(options.signal ? { signal: options.signal } : {}),
      });
      const chunks: Uint8Array[] = [];
      let size = 0;
      for await (const chunk of response.body ?? []) {
        size += chunk.length;
        if (size > RESPONSE_CAP_BYTES) throw new Error('The identity provider answered more than 1 MiB.');
        chunks.push(chunk);
      }
      const noBody = response.status === 204 || response.status === 304;
      return new Response(noBody ? null : Buffer.concat(chunks), {
        status: response.status,
        statusText: response.statusText,
        headers: new Headers([...response.headers]),
      });
    } finally {
      await agent.destroy().catch(() => undefined);
    }
  };
}

import { createHmac } from 'node:crypto';
import type { LookupFunction } from 'node:net';
import type { Agent } from 'undici';
import { type LookupFn, parseTargetUrl, type ResolvedAddress, resolveTarget, UnsafeTargetError } from './ssrf.js';
import {
  DELIVERY_HEADER,
  EVENT_HEADER,
  RESPONSE_BODY_CAP_BYTES,
  SIGNATURE_HEADER,
  SIGNATURE_SCHEME,
  SIGNATURE_V2_HEADER,
  TIMESTAMP_HEADER,
  USER_AGENT,
} from './webhooks.constants.js';

export interface OutgoingDelivery {
  id: string;
  event: string;
  url: string;
  secret: string;
  /** The stored envelope, sent byte for byte. */
  payload: string;
}

export interface AttemptResult {
  ok: boolean;
  statusCode: number | null;
  /** Short, for operators; never contains the receiver's response body. */
  error: string | null;
}

export interface SendOptions {
  allowPrivate: boolean;
  lookup: LookupFn;
  timeoutMs: number;
  /** When the attempt is made: its unix seconds are signed into SIGNATURE_V2_HEADER. */
  now: Date;
}

const hmacHex = (secret: string, ...parts: (Buffer | string)[]) => {
  const hmac = createHmac('sha256', secret);
  for (const part of parts) hmac.update(part);
  return hmac.digest('hex');
};

/**
 * The signature headers of one attempt: the interface's `sha256=<hex HMAC(secret, body)>`, and the
 * timestamped one over `<t>.<body>`, which a receiver can refuse once `t` is stale (a replay).
 */
export function signatureHeaders(secret: string, body: Buffer | string, now: Date): Record<string, string> {
  const t = Math.floor(now.getTime() / 1000).toString();
  return {
    [SIGNATURE_HEADER.toLowerCase()]: `${SIGNATURE_SCHEME}=${hmacHex(secret, body)}`,
    [TIMESTAMP_HEADER.toLowerCase()]: t,
    [SIGNATURE_V2_HEADER.toLowerCase()]: `t=${t},v1=${hmacHex(secret, `${t}.`, body)}`,
  };
}

function deliveryHeaders(delivery: OutgoingDelivery, body: Buffer, now: Date): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    ...signatureHeaders(delivery.secret, body, now),
    [EVENT_HEADER.toLowerCase()]: delivery.event,
    [DELIVERY_HEADER.toLowerCase()]: delivery.id,
  };
}

/** Makes every connection of an agent go to the one address the guard checked. */
function pinnedLookup(target: ResolvedAddress): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
}

function describeFailure(err: unknown, timeoutMs: number): string {
  if (err instanceof UnsafeTargetError) return `refused: ${err.message}`;
  const e = err as { name?: string; code?: string; message?: string };
  if (e.name === 'TimeoutError' || e.name === 'AbortError' || e.code === 'UND_ERR_CONNECT_TIMEOUT') {
    return `timed out after ${timeoutMs} ms`;
  }
  if (e.code === 'ENOTFOUND' || e.code === 'EAI_AGAIN') return `DNS lookup failed (${e.code})`;
  if (typeof e.code === 'string') return `connection failed (${e.code})`;
  return 'connection failed';
}

/** The deadline covers name resolution too, not only the HTTP exchange. */
function beforeDeadline<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
    work.then(resolve, reject);
  });
}

/** Reads at most the cap and drops it; the status code alone decides the attempt. */
async function readCapped(body: AsyncIterable<Buffer>): Promise<void> {
  let read = 0;
  try {
    for await (const chunk of body) {
      read += chunk.length;
      if (read >= RESPONSE_BODY_CAP_BYTES) break;
    }
  } catch {
    // A receiver that answered and then stalled or reset has still answered.
  }
}

/**
 * One attempt: check the URL again, resolve and check every address, connect to the checked address
 * only, POST the raw payload, and read at most RESPONSE_BODY_CAP_BYTES of the answer. Redirects are
 * not followed (a 3xx is a failed attempt). Never throws. undici is imported at the first delivery:
 * a service without webhook subscriptions never holds it (docs/decisions.md, memory).
 */
export async function sendDelivery(delivery: OutgoingDelivery, options: SendOptions): Promise<AttemptResult> {
  let agent: Agent | null = null;
  try {
    // Before the clock starts: loading the module is not the receiver's time.
    const { Agent, request } = await import('undici');
    const signal = AbortSignal.timeout(options.timeoutMs);
    const url = parseTargetUrl(delivery.url, options.allowPrivate);
    const target = await beforeDeadline(resolveTarget(url, options.allowPrivate, options.lookup), signal);
    agent = new Agent({
      connections: 1,
      pipelining: 0,
      connect: { timeout: options.timeoutMs, lookup: pinnedLookup(target) },
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    });
    const body = Buffer.from(delivery.payload, 'utf8');
    const response = await request(url, {
      method: 'POST',
      body,
      headers: deliveryHeaders(delivery, body, options.now),
      dispatcher: agent,
      signal,
    });
    await readCapped(response.body);
    const ok = response.statusCode >= 200 && response.statusCode < 300;
    const redirect = response.statusCode >= 300 && response.statusCode < 400;
    return {
      ok,
      statusCode: response.statusCode,
      error: ok ? null : `HTTP ${response.statusCode}${redirect ? ' (redirects are not followed)' : ''}`,
    };
  } catch (err) {
    return { ok: false, statusCode: null, error: describeFailure(err, options.timeoutMs) };
  } finally {
    await agent?.destroy().catch(() => undefined);
  }
}

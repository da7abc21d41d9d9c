import type { LookupFunction } from 'node:net';
import { type LookupFn, parseTargetUrl, type ResolvedAddress, resolveTarget } from '../webhooks/ssrf.js';

/** One document of an import (an assertion, a BadgeClass, a DID document, a status list) is small JSON. */
export const IMPORT_DOCUMENT_CAP_BYTES = 256 * 1024;
/** The whole exchange of one fetch, name resolution included. */
export const IMPORT_FETCH_TIMEOUT_MS = 5000;
/** Fetches one import may make: the assertion, its BadgeClass and Issuer, a DID document and status lists. */
export const IMPORT_FETCHES_MAX = 6;

export interface FetchedDocument {
  status: number;
  body: string;
}

/** A fetch an import could not make; the message is the earner's, naming no resolved address. */
export class ImportFetchError extends Error {
  override name = 'ImportFetchError';
}

function pinnedLookup(target: ResolvedAddress): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
}

/** The deadline covers name resolution too, not only the HTTP exchange. */
function beforeDeadline<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
    work.then(resolve, reject);
  });
}

/** One exchange with another host, through the SSRF guard; the body read up to `capBytes`. */
export interface GuardedExchange {
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  capBytes: number;
}

/**
 * One request to another host through the webhooks' SSRF guard: https only (WEBHOOK_ALLOW_PRIVATE
 * also lets http and private addresses through, for development and tests), every resolved address
 * public, the connection pinned to the checked address, no redirects followed,
 * IMPORT_FETCH_TIMEOUT_MS for the whole exchange and at most `capBytes` read. Its errors are
 * ImportFetchErrors whose message names the host, never a resolved address.
 */
export async function guardedExchange(
  raw: string,
  exchange: GuardedExchange,
  options: { allowPrivate: boolean; lookup: LookupFn },
): Promise<{ status: number; headers: Record<string, string>; body: Buffer }> {
  const { Agent, request } = await import('undici');
  let url: URL;
  try {
    url = parseTargetUrl(raw, options.allowPrivate);
  } catch {
    throw new ImportFetchError(`${raw.slice(0, 200)} is not an address the backpack fetches (https, public hosts).`);
  }
  const signal = AbortSignal.timeout(IMPORT_FETCH_TIMEOUT_MS);
  let agent: InstanceType<typeof Agent> | null = null;
  try {
    const target = await beforeDeadline(resolveTarget(url, options.allowPrivate, options.lookup), signal);
    agent = new Agent({
      connections: 1,
      pipelining: 0,
      connect: { timeout: IMPORT_FETCH_TIMEOUT_MS, lookup: pinnedLookup(target) },
      headersTimeout: IMPORT_FETCH_TIMEOUT_MS,
      bodyTimeout: IMPORT_FETCH_TIMEOUT_MS,
    });
    const response = await request(url, {
      method: exchange.method,
      headers: exchange.headers,
      ...(exchange.body === undefined ? {} : { body: exchange.body }),
      dispatcher: agent,
      signal,
    });
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > exchange.capBytes) {
        throw new ImportFetchError(`${url.host} answered more than ${exchange.capBytes / 1024} KiB.`);
      }
      chunks.push(chunk);
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(response.headers)) {
      if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    return { status: response.statusCode, headers, body: Buffer.concat(chunks) };
  } catch (error) {
    if (error instanceof ImportFetchError) throw error;
    const e = error as { name?: string };
    if (e.name === 'TimeoutError' || e.name === 'AbortError') {
      throw new ImportFetchError(`${url.host} did not answer within ${IMPORT_FETCH_TIMEOUT_MS / 1000} s.`);
    }
    throw new ImportFetchError(`${url.host} could not be reached.`);
  } finally {
    await agent?.destroy().catch(() => undefined);
  }
}

/**
 * The documents an import reads from other hosts, through `guardedExchange` (the SSRF guard, no
 * redirects, IMPORT_FETCH_TIMEOUT_MS) with at most IMPORT_DOCUMENT_CAP_BYTES read. A budget of
 * IMPORT_FETCHES_MAX fetches is made per import (`budget()`), so one import cannot make the
 * service fetch without end.
 */
export function importFetcher(options: { allowPrivate: boolean; lookup: LookupFn }) {
  async function fetchOnce(raw: string): Promise<FetchedDocument> {
    const answer = await guardedExchange(
      raw,
      {
        method: 'GET',
        headers: { accept: 'application/ld+json, application/json;q=0.9, */*;q=0.1' },
        capBytes: IMPORT_DOCUMENT_CAP_BYTES,
      },
      options,
    );
    return { status: answer.status, body: answer.body.toString('utf8') };
  }

  return {
    /** A fetch function good for IMPORT_FETCHES_MAX calls: one import's share. */
    budget() {
      let left = IMPORT_FETCHES_MAX;
      return (url: string): Promise<FetchedDocument> => {
        if (left <= 0) {
          return Promise.reject(new ImportFetchError(`An import reads at most ${IMPORT_FETCHES_MAX} documents.`));
        }
        left -= 1;
        return fetchOnce(url);
      };
    },
  };
}

export type ImportFetch = (url: string) => Promise<FetchedDocument>;

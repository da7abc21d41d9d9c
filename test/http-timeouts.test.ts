import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, dialects, type TestApp } from './helpers.js';

const TRICKLE_EVERY_MS = 100;

interface Trickled {
  /** Bytes of the request written before the server closed the connection. */
  sent: number;
  total: number;
  answer: string;
}

/**
 * Opens a connection and writes `head` at once (if any), then `trickle` one byte every
 * TRICKLE_EVERY_MS, as a slow-body attacker does; resolves when the server closes the connection.
 * Written whole, the request would take total × 100 ms: a connection closed before its last byte was
 * cut off by the server.
 */
function trickle(port: number, head: string, slow: string): Promise<Trickled> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let sent = 0;
    let answer = '';
    let timer: NodeJS.Timeout | undefined;
    socket.on('data', (chunk) => {
      answer += chunk.toString();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ sent, total: slow.length, answer });
    });
    socket.on('connect', () => {
      if (head) socket.write(head);
      timer = setInterval(() => {
        if (sent >= slow.length) return;
        socket.write(slow[sent] as string);
        sent++;
      }, TRICKLE_EVERY_MS);
    });
    socket.setTimeout(60_000, () => reject(new Error('the server never closed the connection')));
  });
}

describe.each(dialects)('HTTP timeouts on a listening server (%s)', (dialect) => {
  let t: TestApp;
  let port: number;

  beforeAll(async () => {
    t = await createTestApp(dialect, {
      env: { HTTP_REQUEST_TIMEOUT_MS: '1500', HTTP_HEADERS_TIMEOUT_MS: '1000' },
    });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.server.address();
    port = typeof address === 'object' && address ? address.port : 0;
  });
  afterAll(async () => t.close());

  it('closes a connection whose body trickles in a byte at a time', async () => {
    const body = JSON.stringify({ id: `trickle-${'x'.repeat(200)}` });
    const head = `POST /api/v1/verify HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    const result = await trickle(port, head, body);
    expect(result.sent).toBeLessThan(result.total);
    expect(result.answer).toMatch(/^HTTP\/1\.1 408/);
  }, 60_000);

  it('closes a connection whose headers trickle in', async () => {
    const head = `GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ${'y'.repeat(200)}\r\n\r\n`;
    const result = await trickle(port, '', head);
    expect(result.sent).toBeLessThan(result.total);
    expect(result.answer).toMatch(/^HTTP\/1\.1 408/);
  }, 60_000);

  it('still answers a request that arrives in time', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/health`);
    expect(res.status).toBe(200);
  });
});

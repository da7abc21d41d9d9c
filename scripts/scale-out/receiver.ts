import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { freePort } from '../../bench/lib/harness.js';

/** One POST the receiver answered, as the dispatcher sent it. */
export interface Received {
  /** X-Service-Delivery: one outbox row. */
  deliveryId: string;
  event: string;
  credentialId: string | null;
  signatureValid: boolean;
}

/**
 * A webhook receiver on loopback that answers 200 at once and keeps every delivery per path, so each
 * leg of the proof subscribes its own path (`/hooks/<leg>`) and counts only its own deliveries.
 */
export interface WebhookReceiver {
  urlFor(leg: string): string;
  /** The signing secret the subscription for `leg` returned, to check X-Service-Signature. */
  setSecret(leg: string, secret: string): void;
  received(leg: string): Received[];
  close(): Promise<void>;
}

export async function startReceiver(): Promise<WebhookReceiver> {
  const byLeg = new Map<string, Received[]>();
  const secrets = new Map<string, string>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const leg = (req.url ?? '').replace(/^\/hooks\//, '');
      const raw = Buffer.concat(chunks);
      let credentialId: string | null = null;
      try {
        const envelope = JSON.parse(raw.toString('utf8')) as { data?: { credentialId?: unknown } };
        credentialId = typeof envelope.data?.credentialId === 'string' ? envelope.data.credentialId : null;
      } catch {
        // an unreadable body names no credential; it still counts as a delivery
      }
      const secret = secrets.get(leg);
      const expected = secret ? `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}` : null;
      const list = byLeg.get(leg) ?? [];
      list.push({
        deliveryId: String(req.headers['x-service-delivery'] ?? ''),
        event: String(req.headers['x-service-event'] ?? ''),
        credentialId,
        signatureValid: expected !== null && req.headers['x-service-signature'] === expected,
      });
      byLeg.set(leg, list);
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
  return {
    urlFor: (leg) => `http://127.0.0.1:${port}/hooks/${leg}`,
    setSecret: (leg, secret) => {
      secrets.set(leg, secret);
    },
    received: (leg) => byLeg.get(leg) ?? [],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** How a leg's deliveries add up: exactly once means no delivery id and no (event, credential) twice. */
export interface DeliveryCount {
  deliveries: number;
  distinctDeliveryIds: number;
  /** Deliveries whose X-Service-Delivery had been received before. */
  repeatedDeliveryIds: number;
  /** (event, credential) pairs received more than once, under any delivery id. */
  duplicateEvents: number;
  badSignatures: number;
  byEvent: Record<string, number>;
}

export function countDeliveries(received: Received[]): DeliveryCount {
  const ids = new Set(received.map((r) => r.deliveryId));
  const perEvent = new Map<string, number>();
  const byEvent: Record<string, number> = {};
  for (const r of received) {
    const k = `${r.event} ${r.credentialId}`;
    perEvent.set(k, (perEvent.get(k) ?? 0) + 1);
    byEvent[r.event] = (byEvent[r.event] ?? 0) + 1;
  }
  return {
    deliveries: received.length,
    distinctDeliveryIds: ids.size,
    repeatedDeliveryIds: received.length - ids.size,
    duplicateEvents: [...perEvent.values()].filter((n) => n > 1).length,
    badSignatures: received.filter((r) => !r.signatureValid).length,
    byEvent,
  };
}

/** Credentials in `ids` with no `event` delivery yet. */
export function undelivered(received: Received[], event: string, ids: Iterable<string>): number {
  const heard = new Set(received.filter((r) => r.event === event).map((r) => r.credentialId));
  let missing = 0;
  for (const id of ids) if (!heard.has(id)) missing++;
  return missing;
}

import { createConnection, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP fault proxy for loopback tests (the role toxiproxy or tc netem would play): forwards every
 * connection to `target`, and while paused moves no bytes either way and leaves new connections
 * unanswered, like a database host that has stopped responding without closing anything.
 */
export interface FaultProxy {
  port: number;
  pause(): void;
  resume(): void;
  /** Connections currently open through the proxy. */
  connections(): number;
  close(): Promise<void>;
}

export async function startFaultProxy(target: { host: string; port: number }): Promise<FaultProxy> {
  let paused = false;
  const pairs = new Set<[Socket, Socket]>();
  const waiting: (() => void)[] = [];

  const link = (client: Socket) => {
    const upstream = createConnection(target);
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    const drop = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
    if (paused) {
      client.pause();
      upstream.pause();
    }
  };

  const server: Server = createServer((client) => {
    client.pause();
    if (paused) waiting.push(() => link(client));
    else link(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;

  return {
    port,
    pause() {
      paused = true;
      for (const [client, upstream] of pairs) {
        client.pause();
        upstream.pause();
      }
    },
    resume() {
      paused = false;
      for (const [client, upstream] of pairs) {
        client.resume();
        upstream.resume();
      }
      for (const connect of waiting.splice(0)) connect();
    },
    connections: () => pairs.size,
    close: () =>
      new Promise<void>((resolve) => {
        for (const [client, upstream] of pairs) {
          client.destroy();
          upstream.destroy();
        }
        server.close(() => resolve());
      }),
  };
}

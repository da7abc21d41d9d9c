import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerAddress } from 'smtp-server';

/** One message as the SMTP server received it. */
export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
  /** Headers (unfolded) by lower-case name. */
  headers: Record<string, string>;
  /** The raw message with quoted-printable undone: what a reader sees of each part. */
  decoded: string;
}

/** How the server answers the RCPT of message attempt `index` (0-based): accept, or an SMTP reply code. */
export type RcptBehaviour = (index: number) => 'accept' | number;

function decodeQuotedPrintable(text: string): string {
  const bytes = text
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_whole, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

function headersOf(raw: string): Record<string, string> {
  const head = raw.split(/\r?\n\r?\n/, 1)[0] ?? '';
  const out: Record<string, string> = {};
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) out[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  return out;
}

/** A real SMTP server on loopback (smtp-server, from the nodemailer project) that keeps what it gets. */
export async function startSmtpServer(behaviour: RcptBehaviour = () => 'accept') {
  const messages: ReceivedMail[] = [];
  let attempts = 0;
  let connections = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onConnect(_session, callback) {
      connections++;
      callback();
    },
    onRcptTo(_address: SMTPServerAddress, _session, callback) {
      const answer = behaviour(attempts++);
      if (answer === 'accept') return callback();
      const error = new Error(answer >= 500 ? 'Mailbox unavailable' : 'Try again later') as Error & {
        responseCode: number;
      };
      error.responseCode = answer;
      return callback(error);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('latin1');
        messages.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
          headers: headersOf(raw),
          decoded: decodeQuotedPrintable(raw),
        });
        callback();
      });
    },
  });
  // A client that goes away mid-connection (a server process stopped with its pooled connections
  // open) is the client's business, as for any SMTP server: it must not end this process.
  server.on('error', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    attempts: () => attempts,
    /** SMTP connections opened to this server so far. */
    connections: () => connections,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

import type { Transporter } from 'nodemailer';
import { loadedOnce } from '../../core/loaded-once.js';

export interface MailMessage {
  from: { name: string; address: string };
  to: string;
  replyTo: string | null;
  subject: string;
  html: string;
  text: string;
  headers: Record<string, string>;
}

/**
 * What became of one send. `detail` names the SMTP reply code or the transport's error code only:
 * a server's reply text often quotes the recipient's address, so it is never kept.
 */
export type SendResult = { ok: true } | { ok: false; temporary: boolean; detail: string };

export interface Mailer {
  send(message: MailMessage): Promise<SendResult>;
  close(): void;
}

/** Socket errors and 4xx replies are worth another try; 5xx replies and anything else are final. */
export function classifySendError(error: unknown): { temporary: boolean; detail: string } {
  const { responseCode, code } = (error ?? {}) as { responseCode?: unknown; code?: unknown };
  if (typeof responseCode === 'number') {
    return { temporary: responseCode >= 400 && responseCode < 500, detail: `smtp ${responseCode}` };
  }
  const name = typeof code === 'string' && /^[A-Z_]{2,40}$/.test(code) ? code : 'ERROR';
  const temporary = ['ECONNECTION', 'ETIMEDOUT', 'ESOCKET', 'EDNS', 'ECONNREFUSED', 'ECONNRESET', 'EGREETING'].includes(
    name,
  );
  return { temporary, detail: name.toLowerCase() };
}

/**
 * SMTP through nodemailer from `SMTP_URL` (smtp:// upgrades with STARTTLS when offered, smtps:// is
 * TLS), over a pool of connections each reused for many messages, not one connection per message.
 * nodemailer is imported at the first send: a service that sends nothing never holds it
 * (docs/decisions.md, memory).
 */
export function createSmtpMailer(smtpUrl: string): Mailer {
  // A failed start is tried again at the next send instead of failing every send after it.
  const transport = loadedOnce(async (): Promise<Transporter> => {
    const { default: nodemailer } = await import('nodemailer');
    return nodemailer.createTransport({
      url: smtpUrl,
      pool: true,
      maxConnections: 4,
      maxMessages: 100,
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 30_000,
      logger: false,
      debug: false,
    });
  });
  return {
    async send(message) {
      try {
        await (await transport()).sendMail({
          from: message.from,
          to: message.to,
          ...(message.replyTo ? { replyTo: message.replyTo } : {}),
          subject: message.subject,
          html: message.html,
          text: message.text,
          headers: message.headers,
          // One predictable encoding for every part, readable by any client.
          textEncoding: 'quoted-printable',
        });
        return { ok: true };
      } catch (error) {
        return { ok: false, ...classifySendError(error) };
      }
    },
    close: () =>
      void transport.current()?.then(
        (pool) => pool.close(),
        () => undefined,
      ),
  };
}

/**
 * Sends e-mail through the SMTP server SMTP_URL names (docs/e-mail.md), with nodemailer. Plain text only: every mail
 * Storelink sends is a short notice with a link. The URL may carry the server's password: it is never logged, and an
 * error is reported by its code and nodemailer's message, which do not include it.
 */
import nodemailer from 'nodemailer';

export interface MailMessage {
  readonly to: readonly string[];
  readonly subject: string;
  readonly text: string;
}

export interface Mailer {
  /** False without SMTP_URL: nothing can be sent, and the callers say so in the log instead. */
  readonly configured: boolean;
  /** Sends one message; rejects when the server refuses it or cannot be reached within the deadline. */
  send(message: MailMessage): Promise<void>;
  close(): void;
}

export function createMailer(options: { smtpUrl: string | null; from: string; timeoutMs: number }): Mailer {
  const { smtpUrl, from, timeoutMs } = options;
  if (smtpUrl === null)
    return {
      configured: false,
      send: () => Promise.reject(new Error('SMTP_URL is not set')),
      close: () => {},
    };
  const transport = nodemailer.createTransport({
    url: smtpUrl,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    // nodemailer would log the SMTP dialogue (and AUTH) with `logger: true`; the service keeps it off.
    logger: false,
    debug: false,
  });
  return {
    configured: true,
    async send(message) {
      await transport.sendMail({ from, to: [...message.to], subject: message.subject, text: message.text });
    },
    close: () => transport.close(),
  };
}

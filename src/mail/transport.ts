import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import type { App } from "../app.ts";

// Sending one message. With config.smtpUrl set, nodemailer's SMTP transport; otherwise the
// `file` transport: the message is built by nodemailer exactly as it would go out and written
// as an .eml file under <dataDir>/mail/, so nothing is lost on a server without SMTP (the
// operator reads them, tests assert on them). Loaded lazily: idle servers never load nodemailer.

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

export interface Mailer {
  send(msg: MailMessage): Promise<void>;
}

export const mailDir = (app: App) => join(app.config.dataDir, "mail");

/** The From address: config.mailFrom, else notifications@<host name of the domain>. */
export function mailFrom(app: App): string {
  if (app.config.mailFrom) return app.config.mailFrom;
  const host = app.config.domain.replace(/:\d+$/, "");
  return `"${app.config.title.replace(/["\\\r\n]/g, "")}" <notifications@${host}>`;
}

async function makeMailer(app: App): Promise<Mailer> {
  const { createTransport } = await import("nodemailer");
  const from = mailFrom(app);
  if (app.config.smtpUrl) {
    const smtp = createTransport(app.config.smtpUrl);
    return {
      async send(msg) {
        await smtp.sendMail({ from, ...msg });
      },
    };
  }
  const stream = createTransport({ streamTransport: true, buffer: true, newline: "unix" });
  return {
    async send(msg) {
      const info = await stream.sendMail({ from, ...msg });
      const dir = mailDir(app);
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      // Time-sortable names; the random part keeps two messages of one millisecond apart.
      const name = `${String(app.now()).padStart(15, "0")}-${randomBytes(4).toString("hex")}.eml`;
      writeFileSync(join(dir, name), info.message as Buffer, { mode: 0o600 });
    },
  };
}

/** The app's mailer, made on first use. */
export async function mailer(app: App): Promise<Mailer> {
  const key = "mail:transport";
  let m = app.cache.get(key) as Promise<Mailer> | undefined;
  if (!m) app.cache.set(key, (m = makeMailer(app)));
  return m;
}

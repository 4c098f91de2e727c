// Reading what the `file` mail transport wrote (<dataDir>/mail/*.eml), as a mail client would.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { TestServer } from "../helpers/server.ts";

export interface SentMail {
  file: string;
  to: string;
  from: string;
  subject: string;
  /** The decoded text part. */
  text: string;
  raw: string;
}

/** Quoted-printable as nodemailer writes it: soft line breaks and =XX bytes (UTF-8). */
function decodeQp(s: string): string {
  const bytes = s.replace(/=\r?\n/g, "").replace(/=([0-9A-F]{2})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16)));
  return Buffer.from(bytes, "latin1").toString("utf8");
}

function header(head: string, name: string): string {
  const unfolded = head.replace(/\r?\n[ \t]+/g, " ");
  const m = new RegExp(`^${name}:\\s*(.*)$`, "mi").exec(unfolded);
  return m ? m[1].trim() : "";
}

function textPart(raw: string): string {
  const m = /Content-Type: text\/plain[^\n]*\n(?:Content-Transfer-Encoding: ([\w-]+)\n)?\n([\s\S]*?)\n--/i.exec(raw);
  if (!m) return "";
  return m[1]?.toLowerCase() === "quoted-printable" ? decodeQp(m[2]) : m[1]?.toLowerCase() === "base64" ? Buffer.from(m[2], "base64").toString("utf8") : m[2];
}

/** Every message written so far, oldest first. */
export function sentMail(s: TestServer): SentMail[] {
  const dir = join(s.dataDir, "mail");
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(".eml"))
    .sort()
    .map((file) => {
      const raw = readFileSync(join(dir, file), "utf8");
      const head = raw.slice(0, raw.search(/\r?\n\r?\n/));
      return { file, to: header(head, "To"), from: header(head, "From"), subject: header(head, "Subject"), text: textPart(raw), raw };
    });
}

/** Messages to `address` (the To header holds it). */
export const mailTo = (s: TestServer, address: string) => sentMail(s).filter((m) => m.to.includes(address));

/** The first link in a message's text that starts with `prefix` (a path on the server). */
export function linkIn(m: SentMail, s: TestServer, prefix: string): string {
  const found = m.text.match(/https?:\/\/\S+/g)?.find((u) => u.startsWith(s.url + prefix));
  if (!found) throw new Error(`no ${prefix} link in: ${m.text}`);
  return found.slice(s.url.length);
}

import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

// Secrets the server must be able to read back but that the database alone must not reveal
// (a Web Push subscription's access token, which goes into every push message). AES-256-GCM
// with a key derived from the server secret (config.secret, kept in config.json, not in the
// database) per purpose: a copy of roost.db, a backup say, holds only ciphertext.

const VERSION = "v1";
const IV_BYTES = 12;
const TAG_BYTES = 16;

function keyFor(serverSecret: string, purpose: string): Buffer {
  return Buffer.from(hkdfSync("sha256", serverSecret, "", `roost sealed-box ${purpose}`, 32));
}

/** `v1.<base64url(iv | ciphertext | tag)>`. */
export function seal(serverSecret: string, purpose: string, plaintext: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", keyFor(serverSecret, purpose), iv);
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return `${VERSION}.${Buffer.concat([iv, body, cipher.getAuthTag()]).toString("base64url")}`;
}

/** The sealed text, or undefined when it was sealed with another secret or purpose, or is damaged. */
export function unseal(serverSecret: string, purpose: string, box: string): string | undefined {
  if (!box.startsWith(`${VERSION}.`)) return undefined;
  const raw = Buffer.from(box.slice(VERSION.length + 1), "base64url");
  if (raw.length < IV_BYTES + TAG_BYTES) return undefined;
  try {
    const decipher = createDecipheriv("aes-256-gcm", keyFor(serverSecret, purpose), raw.subarray(0, IV_BYTES));
    decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)), decipher.final()]).toString("utf8");
  } catch {
    return undefined;
  }
}

// A Web Push service and user agent for tests, written independently of the server's code (which
// uses the web-push package): node:crypto ECDH + HKDF + AES-GCM per RFC 8291 / RFC 8188 for
// `aes128gcm`, the older drafts (draft-ietf-webpush-encryption-04) for `aesgcm`, and ES256 JWT
// verification per RFC 8292 for VAPID.
import assert from "node:assert/strict";
import { createDecipheriv, createECDH, createPublicKey, type ECDH, hkdfSync, randomBytes, verify } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** A browser's push subscription: the key pair and auth secret stay here, the public half goes to the server. */
export interface PushClient {
  endpoint: string;
  ecdh: ECDH;
  auth: Buffer;
  /** base64url, as a browser's PushSubscription.toJSON() gives them. */
  keys: { p256dh: string; auth: string };
}

export interface ReceivedPush {
  path: string;
  headers: IncomingMessage["headers"];
  body: Buffer;
  /** What the receiver answered. */
  answered: number;
}

export interface PushReceiver {
  url: string;
  received: ReceivedPush[];
  /** A new subscription whose endpoint is `/push/<name>` on this receiver. */
  client(name: string): PushClient;
  /** The next answers for `/push/<name>` (default 201). */
  answer(name: string, ...statuses: number[]): void;
  /** What arrived for one client. */
  to(name: string): ReceivedPush[];
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

export async function startPushReceiver(): Promise<PushReceiver> {
  const received: ReceivedPush[] = [];
  const answers = new Map<string, number[]>();
  const server: Server = createServer(async (req, res) => {
    const body = await readBody(req);
    const path = req.url ?? "";
    const answered = answers.get(path)?.shift() ?? 201;
    received.push({ path, headers: req.headers, body, answered });
    res.writeHead(answered).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    received,
    client(name) {
      const ecdh = createECDH("prime256v1");
      ecdh.generateKeys();
      const auth = randomBytes(16);
      return { endpoint: `${url}/push/${name}`, ecdh, auth, keys: { p256dh: ecdh.getPublicKey().toString("base64url"), auth: auth.toString("base64url") } };
    },
    answer(name, ...statuses) {
      answers.set(`/push/${name}`, [...(answers.get(`/push/${name}`) ?? []), ...statuses]);
    },
    to(name) {
      return received.filter((r) => r.path === `/push/${name}`);
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const hkdf = (ikm: Buffer, salt: Buffer, info: Buffer, length: number) => Buffer.from(hkdfSync("sha256", ikm, salt, info, length));

function aesGcmOpen(key: Buffer, nonce: Buffer, sealed: Buffer): Buffer {
  const d = createDecipheriv("aes-128-gcm", key, nonce);
  d.setAuthTag(sealed.subarray(sealed.length - 16));
  return Buffer.concat([d.update(sealed.subarray(0, sealed.length - 16)), d.final()]);
}

/** RFC 8291 §3.4 + RFC 8188 §2: one record, `salt | rs | idlen | keyid(server public key) | ciphertext`. */
function decryptAes128gcm(client: PushClient, body: Buffer): Buffer {
  const salt = body.subarray(0, 16);
  const rs = body.readUInt32BE(16);
  const idlen = body[20];
  assert.equal(idlen, 65, "keyid is the server's uncompressed P-256 key");
  const serverPublic = body.subarray(21, 21 + idlen);
  const record = body.subarray(21 + idlen);
  assert.ok(record.length <= rs, "a single record");
  const uaPublic = client.ecdh.getPublicKey();
  const ecdhSecret = client.ecdh.computeSecret(serverPublic);
  const keyInfo = Buffer.concat([Buffer.from("WebPush: info\0"), uaPublic, serverPublic]);
  const ikm = hkdf(ecdhSecret, client.auth, keyInfo, 32);
  const cek = hkdf(ikm, salt, Buffer.from("Content-Encoding: aes128gcm\0"), 16);
  const nonce = hkdf(ikm, salt, Buffer.from("Content-Encoding: nonce\0"), 12);
  const padded = aesGcmOpen(cek, nonce, record);
  // The last record ends with the delimiter 0x02, then optional zero padding.
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end--;
  assert.equal(padded[end], 2, "last-record delimiter");
  return padded.subarray(0, end);
}

/** Parameters of a `name=value;name=value` header (Encryption, Crypto-Key). */
function headerParams(v: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (v ?? "").split(/[;,]/)) {
    const i = part.indexOf("=");
    if (i > 0) out[part.slice(0, i).trim()] = part.slice(i + 1).trim();
  }
  return out;
}

/** draft-ietf-webpush-encryption-04: salt in `Encryption`, the server key in `Crypto-Key: dh=`. */
function decryptAesgcm(client: PushClient, push: ReceivedPush): Buffer {
  const salt = Buffer.from(headerParams(push.headers.encryption as string).salt, "base64url");
  const serverPublic = Buffer.from(headerParams(push.headers["crypto-key"] as string).dh, "base64url");
  assert.equal(salt.length, 16);
  assert.equal(serverPublic.length, 65);
  const uaPublic = client.ecdh.getPublicKey();
  const ecdhSecret = client.ecdh.computeSecret(serverPublic);
  const ikm = hkdf(ecdhSecret, client.auth, Buffer.from("Content-Encoding: auth\0"), 32);
  const len = (n: number) => Buffer.from([n >> 8, n & 0xff]);
  const context = Buffer.concat([Buffer.from("P-256\0"), len(65), uaPublic, len(65), serverPublic]);
  const cek = hkdf(ikm, salt, Buffer.concat([Buffer.from("Content-Encoding: aesgcm\0"), context]), 16);
  const nonce = hkdf(ikm, salt, Buffer.concat([Buffer.from("Content-Encoding: nonce\0"), context]), 12);
  const padded = aesGcmOpen(cek, nonce, push.body);
  const padLength = padded.readUInt16BE(0);
  return padded.subarray(2 + padLength);
}

/** The push message, decrypted with the client's private key (either content coding). */
export function decryptPush(client: PushClient, push: ReceivedPush): any {
  const coding = push.headers["content-encoding"];
  const plain = coding === "aes128gcm" ? decryptAes128gcm(client, push.body) : coding === "aesgcm" ? decryptAesgcm(client, push) : assert.fail(`content-encoding ${coding}`);
  return JSON.parse(plain.toString("utf8"));
}

export interface VapidClaims {
  aud: string;
  exp: number;
  sub: string;
}

/**
 * RFC 8292 (`vapid t=..., k=...`) or its draft (`WebPush <jwt>` + `Crypto-Key: p256ecdsa=`):
 * checks that `k` is the server's key and that the ES256 signature verifies with it; returns the claims.
 */
export function verifyVapid(push: ReceivedPush, serverKey: string): VapidClaims {
  const authorization = String(push.headers.authorization ?? "");
  let jwt: string;
  let key: string;
  if (push.headers["content-encoding"] === "aes128gcm") {
    const m = /^vapid t=([^,\s]+),\s*k=(\S+)$/.exec(authorization);
    assert.ok(m, `Authorization: ${authorization}`);
    [jwt, key] = [m[1], m[2]];
  } else {
    const m = /^WebPush (\S+)$/.exec(authorization);
    assert.ok(m, `Authorization: ${authorization}`);
    jwt = m[1];
    key = headerParams(push.headers["crypto-key"] as string).p256ecdsa;
  }
  assert.equal(key.replace(/=+$/, ""), serverKey.replace(/=+$/, ""), "the VAPID key is the server's");
  const point = Buffer.from(key, "base64url");
  const publicKey = createPublicKey({
    key: { kty: "EC", crv: "P-256", x: point.subarray(1, 33).toString("base64url"), y: point.subarray(33, 65).toString("base64url") },
    format: "jwk",
  });
  const [h, p, sig] = jwt.split(".");
  assert.deepEqual(JSON.parse(Buffer.from(h, "base64url").toString()), { typ: "JWT", alg: "ES256" });
  const ok = verify("sha256", Buffer.from(`${h}.${p}`), { key: publicKey, dsaEncoding: "ieee-p1363" }, Buffer.from(sig, "base64url"));
  assert.ok(ok, "the VAPID JWT's signature verifies with the server's key");
  return JSON.parse(Buffer.from(p, "base64url").toString()) as VapidClaims;
}

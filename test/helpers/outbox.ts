// Outbox test helpers: remote accounts and followers made through the services, and signature
// verifiers built by hand with node:crypto (independent of roost's own verifier).
import assert from "node:assert/strict";
import { createHash, createVerify } from "node:crypto";
import type { Account } from "../../src/storage/accounts.ts";
import { findAccountById } from "../../src/storage/accounts.ts";
import { resolveAccountByUri } from "../../src/federation/resolve/accounts.ts";
import { followAccount } from "../../src/services/follows.ts";
import type { Delivery, FakeActor, FakeRemote } from "./fake-remote.ts";
import type { TestServer, TestUser } from "./server.ts";

export const PUBLIC = "https://www.w3.org/ns/activitystreams#Public";

/** The stored account of a fake remote actor, resolved as the inbox or search would. */
export async function remoteAccount(s: TestServer, actor: FakeActor): Promise<Account> {
  const account = await resolveAccountByUri(s.app, actor.id);
  assert.ok(account, `could not resolve ${actor.id}`);
  return account;
}

/** Makes `follower` (remote) follow a local user through the service the inbox uses. */
export function remoteFollows(s: TestServer, follower: Account, local: TestUser): void {
  followAccount(s.app, follower, findAccountById(s.app.db, local.id)!, {});
}

/** Forgets what the remotes received so far (setup traffic such as Accepts). */
export function clearReceived(...remotes: FakeRemote[]): void {
  for (const r of remotes) r.received.length = 0;
}

/** Deliveries of one activity type. */
export const ofType = (r: FakeRemote, type: string) => r.received.filter((d) => d.body?.type === type);

/** Runs the test server's jobs as if `ms` had passed. */
export function advance(s: TestServer, ms: number): void {
  const at = s.app.now() + ms;
  s.app.now = () => at;
}

const params = (header: string) => Object.fromEntries([...header.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));

/**
 * Checks a draft-cavage signed POST: the Digest matches the raw body and the signature over the
 * signing string rebuilt from the received headers verifies with `publicKeyPem`.
 */
export function verifyCavage(d: Delivery, publicKeyPem: string): { keyId: string; headers: string[] } {
  const sig = params(d.headers.signature ?? "");
  assert.ok(sig.keyId && sig.signature && sig.headers, `no cavage Signature header: ${d.headers.signature}`);
  assert.equal(sig.algorithm, "rsa-sha256");
  const names = sig.headers.split(" ");
  for (const required of ["(request-target)", "host", "date", "digest"]) assert.ok(names.includes(required), `${required} is not signed`);
  assert.equal(d.headers.digest, "SHA-256=" + createHash("sha256").update(d.raw).digest("base64"));
  const lines = names.map((n) => (n === "(request-target)" ? `(request-target): ${d.method.toLowerCase()} ${d.path}` : `${n}: ${d.headers[n]}`));
  const ok = createVerify("sha256").update(lines.join("\n")).verify(publicKeyPem, sig.signature, "base64");
  assert.ok(ok, "cavage signature does not verify");
  return { keyId: sig.keyId, headers: names };
}

/** Checks an RFC 9421 signed POST (single `sig1`, RSA PKCS#1 v1.5 SHA-256) to `url`. */
export function verifyRfc9421(d: Delivery, publicKeyPem: string, url: string): { keyId: string } {
  const input = d.headers["signature-input"] ?? "";
  const m = /^(\w+)=(\(([^)]*)\)(.*))$/.exec(input);
  assert.ok(m, `no Signature-Input: ${input}`);
  const [, label, paramsText, components] = m;
  const covered = components.split(" ").map((c) => c.replace(/"/g, ""));
  assert.deepEqual(covered, ["@method", "@target-uri", "content-digest"]);
  assert.equal(d.headers["content-digest"], `sha-256=:${createHash("sha256").update(d.raw).digest("base64")}:`);
  const value = (c: string) => (c === "@method" ? d.method : c === "@target-uri" ? url : d.headers[c]);
  const base = [...covered.map((c) => `"${c}": ${value(c)}`), `"@signature-params": ${paramsText}`].join("\n");
  const sm = new RegExp(`${label}=:([^:]+):`).exec(d.headers.signature ?? "");
  assert.ok(sm, `no Signature: ${d.headers.signature}`);
  assert.ok(createVerify("sha256").update(base).verify(publicKeyPem, sm[1], "base64"), "RFC 9421 signature does not verify");
  const keyId = /keyid="([^"]*)"/.exec(paramsText)?.[1];
  assert.ok(keyId);
  return { keyId };
}

// The instance actor (AP §3.3): the server's own Application actor. It signs our fetches and
// sends reports; its keys were made by `roost init` (instance_keys).
import type { App } from "../app.ts";
import { stmt, type Row } from "../db/db.ts";
import type { SignKey } from "./net/http-signatures.ts";

export const instanceActorUri = (app: App) => `${app.baseUrl}/actor`;
export const instanceActorKeyId = (app: App) => `${app.baseUrl}/actor#main-key`;

interface InstanceKeys {
  publicKeyPem: string;
  privateKeyPem: string;
}

/** The instance actor's key pair (read once per app: it never changes while running). */
export function instanceActorKeys(app: App): InstanceKeys {
  const cached = app.cache.get("federation:instance-keys") as InstanceKeys | undefined;
  if (cached) return cached;
  const r = stmt(app.db, "SELECT public_key_pem, private_key_pem FROM instance_keys WHERE name = 'instance_actor'").get() as Row | undefined;
  if (!r) throw new Error("instance actor keys are missing (was the data dir made by `roost init`?)");
  const keys = { publicKeyPem: r.public_key_pem as string, privateKeyPem: r.private_key_pem as string };
  app.cache.set("federation:instance-keys", keys);
  return keys;
}

/** The key our fetches are signed with. */
export function instanceActorSignKey(app: App): SignKey {
  return { keyId: instanceActorKeyId(app), privateKeyPem: instanceActorKeys(app).privateKeyPem };
}

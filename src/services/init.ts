import { generateKeyPairSync } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { type Config, ConfigError, type Registrations, isInitialised, writeConfigFile } from "../config/config.ts";
import { openDatabase } from "../db/db.ts";
import { migrate } from "../db/migrate.ts";
import { randomToken } from "../lib/crypto.ts";

export interface InitOptions {
  domain: string;
  protocol?: "https" | "http";
  title?: string;
  registrations?: Registrations;
  allowPrivateAddresses?: boolean;
}

export const databasePath = (dataDir: string) => join(dataDir, "roost.db");
export const mediaPath = (dataDir: string) => join(dataDir, "media");

/** Web Push (VAPID) key pair: P-256, public key as an uncompressed point, both base64url. */
export function generateVapidKeys(): { publicKey: string; privateKey: string } {
  const { publicKey, privateKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  const pub = publicKey.export({ format: "jwk" });
  const priv = privateKey.export({ format: "jwk" });
  const point = Buffer.concat([
    Buffer.from([4]),
    Buffer.from(pub.x!, "base64url"),
    Buffer.from(pub.y!, "base64url"),
  ]);
  return { publicKey: point.toString("base64url"), privateKey: priv.d! };
}

/**
 * `roost init`: creates the data dir, config file, database (migrated), media dir and the
 * instance actor's keys. Refuses an initialised dir.
 */
export function initDataDir(dataDir: string, opts: InitOptions): void {
  if (isInitialised(dataDir)) throw new ConfigError(`${dataDir} is already initialised`);
  if (!/^[a-z0-9.-]+(:\d{1,5})?$/i.test(opts.domain)) {
    throw new ConfigError(`invalid domain: ${JSON.stringify(opts.domain)} (expected HOST or HOST:PORT)`);
  }
  mkdirSync(mediaPath(dataDir), { recursive: true });
  const vapid = generateVapidKeys();
  const values: Partial<Config> = {
    domain: opts.domain.toLowerCase(),
    protocol: opts.protocol ?? "https",
    title: opts.title ?? "Roost",
    registrations: opts.registrations ?? "open",
    allowPrivateAddresses: opts.allowPrivateAddresses ?? false,
    secret: randomToken(48),
    vapidPublicKey: vapid.publicKey,
    vapidPrivateKey: vapid.privateKey,
  };
  const db = openDatabase(databasePath(dataDir));
  try {
    migrate(db);
    const { publicKey, privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    db.prepare(
      "INSERT OR IGNORE INTO instance_keys (name, public_key_pem, private_key_pem, created_at) VALUES ('instance_actor', ?, ?, ?)",
    ).run(
      publicKey.export({ type: "spki", format: "pem" }).toString(),
      privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
      Date.now(),
    );
  } finally {
    db.close();
  }
  // The config file is written last: its presence is what marks the dir as initialised.
  writeConfigFile(dataDir, values);
}

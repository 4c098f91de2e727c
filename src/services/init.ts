import { createECDH, generateKeyPairSync } from "node:crypto";
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

/**
 * Web Push (VAPID) key pair: P-256, public key as an uncompressed point, both base64url.
 * Made with ECDH rather than generateKeyPairSync + JWK export: on Node 20 that export can
 * deadlock the process when the GC frees the key-generation job in the middle of it (seen as
 * a test process hanging in KeyGenJob's destructor under ExportJWKEcKey).
 */
export function generateVapidKeys(): { publicKey: string; privateKey: string } {
  const ecdh = createECDH("prime256v1");
  ecdh.generateKeys();
  // Both are fixed-size on the wire; a key with leading zero bytes comes back shorter.
  const fixed = (b: Buffer, size: number) => Buffer.concat([Buffer.alloc(Math.max(0, size - b.length)), b]);
  return {
    publicKey: fixed(ecdh.getPublicKey(), 65).toString("base64url"),
    privateKey: fixed(ecdh.getPrivateKey(), 32).toString("base64url"),
  };
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

// Remote accounts: finding, fetching and storing them (AP §3.2, discovery.md §1.2).
import type { App } from "../../app.ts";
import type { Account } from "../../storage/accounts.ts";
import type { ParsedActor } from "../parse/actor.ts";

/**
 * Inserts or updates the account row of a remote actor (keyed by actor uri), including its
 * profile emojis. `domain` is the verified handle's domain (`host[:port]`). Synchronous: may
 * run inside a transaction. Returns the stored account.
 */
export function upsertRemoteAccount(_app: App, _actor: ParsedActor, _domain: string): Account {
  throw new Error("upsertRemoteAccount: not implemented");
}

/**
 * The account of an actor uri: stored, else fetched (signed GET), its handle verified through
 * WebFinger, and stored. `refresh` refetches a known remote account. Undefined when the actor
 * does not exist or is not usable; throws FetchError/FederationError on transient failures.
 * Local uris resolve to local accounts without a fetch.
 */
export async function resolveAccountByUri(_app: App, _uri: string, _opts: { refresh?: boolean } = {}): Promise<Account | undefined> {
  throw new Error("resolveAccountByUri: not implemented");
}

/**
 * `user@domain` → account: a known one, else WebFinger + actor fetch. `domain` null or ours
 * means a local account (no network). Undefined when it does not exist.
 */
export async function resolveAccountByHandle(_app: App, _username: string, _domain: string | null): Promise<Account | undefined> {
  throw new Error("resolveAccountByHandle: not implemented");
}

/**
 * The account and public key behind an HTTP-signature key id: a stored key id, else the key id
 * URL is fetched (actor with that key, or a key document whose owner lists it, AP §10.2).
 * `refresh` refetches even when stored (verification failed with the stored key).
 */
export async function resolveAccountByKeyId(
  _app: App,
  _keyId: string,
  _opts: { refresh?: boolean } = {},
): Promise<{ account: Account; publicKeyPem: string } | undefined> {
  throw new Error("resolveAccountByKeyId: not implemented");
}

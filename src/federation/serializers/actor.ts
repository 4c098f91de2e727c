// Local accounts → actor documents (AP §3.1), the instance actor (§3.3).
import type { App } from "../../app.ts";
import type { Account } from "../../storage/accounts.ts";
import type { ApObject } from "../types.ts";

/** Person (Service for bots) with keys, endpoints, profile fields, emoji tags, moves. */
export function toApActor(_app: App, _account: Account): ApObject {
  throw new Error("toApActor: not implemented");
}

/** The instance actor's document (Application). */
export function toApInstanceActor(_app: App): ApObject {
  throw new Error("toApInstanceActor: not implemented");
}

// Local statuses → Note objects (AP §4.1).
import type { App } from "../../app.ts";
import type { Status } from "../../storage/statuses.ts";
import type { ApObject } from "../types.ts";

/** The Note of a local status (not a boost), with addressing, tags, emojis and attachments. */
export function toApNote(_app: App, _status: Status): ApObject {
  throw new Error("toApNote: not implemented");
}

// Refreshing a remote poll from its origin (Mastodon's ActivityPub::FetchRemotePollService):
// the status is fetched again and applied as an Update would be, so its tallies, voters and
// end are the origin's (an edit newer than ours is applied as an edit).
import type { App } from "../../app.ts";
import { type Account, findAccountById } from "../../storage/accounts.ts";
import type { Status } from "../../storage/statuses.ts";
import { fetchApObject } from "../fetch-object.ts";
import { isNoteLike, parseApNote } from "../parse/note.ts";
import { updateRemoteStatus } from "../remote-statuses.ts";

/** Fetches `status` from its uri (signed by `signer`, Mastodon's on_behalf_of) and applies it. */
export async function refreshRemoteStatus(app: App, status: Status, signer?: Account): Promise<void> {
  if (status.local) return;
  const doc = await fetchApObject(app, status.uri, { signer });
  if (!doc || !isNoteLike(doc)) return;
  const note = parseApNote(doc);
  const author = findAccountById(app.db, status.accountId);
  if (note.uri !== status.uri || !author) return;
  await updateRemoteStatus(app, note, author);
}

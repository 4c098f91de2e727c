// Incoming poll votes (AP §5.1, §5.12): a Create of a Note whose `name` is an option of a local
// poll and whose `inReplyTo` is that poll's status is a vote, not a status (Mastodon's
// Create#poll_vote?). Every software sends them so: Mastodon and GoToSocial to the author
// (one Create per choice), Misskey with `to: [author]`, Akkoma/Pleroma as an Answer turned Note
// with `to: []` and `cc: [author]`.
import { recordRemoteVote } from "../../services/polls.ts";
import { findPollById } from "../../storage/polls.ts";
import { isBlockedEitherWay } from "../../storage/relationship-checks.ts";
import { findStatusByLink } from "../../storage/status-urls.ts";
import { asArray, hasType, hostOf, httpUrl, idOf } from "../parse/common.ts";
import type { ApObject } from "../types.ts";
import { type InboxContext, ignore } from "./context.ts";

/** Handles `obj` when it is a vote in a local poll; false when it is not one (then it may be a status). */
export function handleVote(ctx: InboxContext, obj: ApObject): boolean {
  const { app, actor } = ctx;
  if (!hasType(obj, "Note", "Answer") || typeof obj.name !== "string") return false;
  const target = httpUrl(idOf(asArray(obj.inReplyTo)[0]));
  const status = target ? findStatusByLink(app.db, target) : undefined;
  if (!status?.local || !status.pollId) return false;
  const poll = findPollById(app.db, status.pollId);
  if (!poll || !poll.options.includes(obj.name)) return false;
  const uri = httpUrl(idOf(obj)) ?? null;
  // A vote can only come from the voter's server (AP §12).
  if (uri !== null && hostOf(uri) !== hostOf(actor.uri)) ignore(ctx, "vote with an id on another host");
  else if (isBlockedEitherWay(app.db, actor.id, poll.accountId)) ignore(ctx, "vote across a block");
  else recordRemoteVote(app, actor, poll, status, obj.name, uri);
  return true;
}

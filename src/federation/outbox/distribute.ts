// `federation.distribute`: builds an activity from the current rows, chooses its inboxes and
// queues one `federation.deliver` per inbox. Synchronous and database-only, so the runner runs
// it as a transactional job: the stored body and its deliveries commit together.
import type { App } from "../../app.ts";
import { PermanentJobError } from "../../errors.ts";
import type { Id } from "../../lib/ids.ts";
import { findAccountById } from "../../storage/accounts.ts";
import { findStatusById } from "../../storage/statuses.ts";
import { toApAnnounce, toApCreate, toApFeaturedChange, toApUpdateActor, toApUpdateNote } from "../serializers/activities.ts";
import { statusAudienceInboxes } from "../../storage/federation-recipients.ts";
import { remoteVoterInboxes } from "../../storage/poll-votes.ts";
import { findPollById, setPollUpdateDueAt } from "../../storage/polls.ts";
import { toApUpdateQuestion } from "../serializers/poll-activities.ts";
import { followerInboxes, profileInboxes, selectInboxes, statusAudienceQuery, statusInboxes } from "./recipients.ts";
import { DISTRIBUTE_JOB, enqueueDeliveries, FEDERATION_QUEUE, sendActivity } from "./send.ts";

export type DistributePayload =
  /** Create(Note) of a new local status, or Announce of a local boost. */
  | { kind: "create"; statusId: Id }
  /** Update(Note) after an edit. */
  | { kind: "update"; statusId: Id }
  /** Update(Question) with a local poll's current tallies. */
  | { kind: "poll"; statusId: Id }
  /** Update(Person) after a profile change. */
  | { kind: "profile"; accountId: Id }
  /** Add / Remove of a pin. */
  | { kind: "featured"; op: "Add" | "Remove"; accountId: Id; statusId: Id }
  /** Deliveries of an activity stored and addressed already (see sendActivity). */
  | { kind: "fanout"; a: Id; inboxes: string[]; f?: 1 };

/** Queues a distribution (at `runAt`, default now); called by the hooks inside the service's transaction. */
export function enqueueDistribute(app: App, payload: DistributePayload, runAt?: number): void {
  app.jobs.enqueue(DISTRIBUTE_JOB, payload, { queue: FEDERATION_QUEUE, runAt });
}

export function handleDistribute(app: App, payload: DistributePayload): void {
  switch (payload.kind) {
    case "create":
      return distributeStatus(app, payload.statusId, "create");
    case "update":
      return distributeStatus(app, payload.statusId, "update");
    case "poll":
      return distributePollUpdate(app, payload.statusId);
    case "profile":
      return distributeProfile(app, payload.accountId);
    case "featured":
      return distributeFeatured(app, payload.op, payload.accountId, payload.statusId);
    case "fanout":
      return enqueueDeliveries(app, payload.a, payload.inboxes, payload.f === 1);
    default:
      throw new PermanentJobError(`unknown distribution ${JSON.stringify(payload)}`);
  }
}

/** A status deleted (or an author gone) before its turn came needs no activity: it is skipped. */
function distributeStatus(app: App, statusId: Id, phase: "create" | "update"): void {
  const status = findStatusById(app.db, statusId);
  const author = status && findAccountById(app.db, status.accountId);
  if (!status || !author || author.domain !== null) return;
  if (status.reblogOfId) {
    if (phase !== "create") return;
    const original = findStatusById(app.db, status.reblogOfId);
    const originalAuthor = original && findAccountById(app.db, original.accountId);
    if (!original || !originalAuthor) return;
    const inboxes = statusInboxes(app, status, "create", originalAuthor.id);
    if (inboxes.length === 0) return;
    sendActivity(app, { actorAccountId: author.id, activity: toApAnnounce(app, status, original, originalAuthor), inboxes });
    return;
  }
  const inboxes = statusInboxes(app, status, phase);
  if (inboxes.length === 0) return;
  const activity = phase === "create" ? toApCreate(app, status) : toApUpdateNote(app, status);
  sendActivity(app, { actorAccountId: author.id, activity, inboxes });
}

/**
 * Update(Question) of a local poll (Mastodon's DistributePollUpdateWorker): to the status's
 * audience, as for an edit, and to every remote voter.
 */
function distributePollUpdate(app: App, statusId: Id): void {
  const status = findStatusById(app.db, statusId);
  const poll = status?.pollId ? findPollById(app.db, status.pollId) : undefined;
  if (!status || !poll || !status.local) return;
  if (poll.updateDueAt !== null && poll.updateDueAt <= app.now()) setPollUpdateDueAt(app.db, poll.id, null);
  const rows = [...statusAudienceInboxes(app.db, statusAudienceQuery(status, "update")), ...remoteVoterInboxes(app.db, poll.id)];
  const inboxes = selectInboxes(app, rows);
  const activity = inboxes.length ? toApUpdateQuestion(app, status) : undefined;
  if (activity) sendActivity(app, { actorAccountId: status.accountId, activity, inboxes });
}

function distributeProfile(app: App, accountId: Id): void {
  const account = findAccountById(app.db, accountId);
  if (!account || account.domain !== null) return;
  const inboxes = profileInboxes(app, account.id);
  if (inboxes.length === 0) return;
  sendActivity(app, { actorAccountId: account.id, activity: toApUpdateActor(app, account), inboxes });
}

function distributeFeatured(app: App, op: "Add" | "Remove", accountId: Id, statusId: Id): void {
  const account = findAccountById(app.db, accountId);
  const status = findStatusById(app.db, statusId);
  if (!account || !status || account.domain !== null) return;
  const inboxes = followerInboxes(app, account.id);
  if (inboxes.length === 0) return;
  sendActivity(app, { actorAccountId: account.id, activity: toApFeaturedChange(app, op, account, status), inboxes });
}

// Incoming Flag (AP §5.9): a remote report. Each known account listed becomes a report target
// with the listed statuses of that account; remote targets only when those statuses reply to
// local users (a report about a remote post is that server's business otherwise).
import type { Id } from "../../lib/ids.ts";
import { type Account, findAccountById, findAccountByUri } from "../../storage/accounts.ts";
import { findStatusByUri, type Status } from "../../storage/statuses.ts";
import { createRemoteReports, type IncomingFlag } from "../../services/reports.ts";
import { idsOf, str } from "../parse/common.ts";
import { domainPolicy } from "../domain-policy.ts";
import { type InboxContext, ignore } from "./context.ts";

/** Objects read from one Flag: a report names an account and some of its posts, not thousands. */
const MAX_FLAG_OBJECTS = 100;

export function handleFlag(ctx: InboxContext): void {
  const { app, activity, actor } = ctx;
  if (actor.domain !== null && domainPolicy(app, actor.domain).rejectReports) return ignore(ctx, "reports from this domain are rejected");
  const uris = idsOf(activity.object).slice(0, MAX_FLAG_OBJECTS);
  const targets: Account[] = [];
  const statuses = new Map<Id, Status[]>();
  for (const uri of uris) {
    const account = findAccountByUri(app.db, uri);
    if (account) {
      if (!targets.some((t) => t.id === account.id)) targets.push(account);
      continue;
    }
    const status = findStatusByUri(app.db, uri);
    if (status) statuses.set(status.accountId, [...(statuses.get(status.accountId) ?? []), status]);
  }
  const flags: IncomingFlag[] = [];
  for (const target of targets) {
    if (target.suspendedAt !== null) continue;
    const listed = statuses.get(target.id) ?? [];
    if (target.domain !== null) {
      const repliesToLocal = listed.some((s) => {
        const parent = s.inReplyToAccountId ? findAccountById(app.db, s.inReplyToAccountId) : undefined;
        return parent?.domain === null;
      });
      if (!repliesToLocal) continue;
    }
    // reports.uri is unique: the Flag's id names the report of its first target.
    flags.push({ uri: flags.length === 0 ? (str(activity.id) ?? null) : null, comment: str(activity.content) ?? "", target, statusIds: listed.map((s) => s.id) });
  }
  if (flags.length === 0) return ignore(ctx, "Flag without a reportable target");
  createRemoteReports(app, actor, flags);
}

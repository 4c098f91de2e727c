import type { Command } from "commander";
import { AS_HELP, asActor, positiveInt } from "../admin-context.ts";
import { printRows } from "../output.ts";

const COLUMNS = [
  { key: "id", title: "id" },
  { key: "created_at", title: "time" },
  { key: "actor", title: "actor" },
  { key: "source", title: "via" },
  { key: "action", title: "action" },
  { key: "target", title: "target" },
  { key: "changes", title: "changes" },
] as const;

/** {"field": [before, after]} as `field: before → after; ...` for the table. */
function changesText(changes: Record<string, [unknown, unknown]>): string {
  const show = (v: unknown) => (v === null || v === undefined ? "∅" : typeof v === "string" ? v : JSON.stringify(v));
  return Object.entries(changes)
    .map(([k, [b, a]]) => `${k}: ${show(b)} → ${show(a)}`)
    .join("; ");
}

export function registerAuditCommands(program: Command): void {
  const audit = program.command("audit").description("the audit log: who did what to which record, and what changed (read-only)").option("--as <user>", AS_HELP);
  audit
    .command("list")
    .description("entries, newest first")
    .option("--actor <account>", "by this staff member")
    .option("--action <action>", "of this action (suspend, resolve, change_role ...)")
    .option("--target-type <type>", "on this kind of record (Account, User, Report, UserRole ...)")
    .option("--target <id>", "on this record id")
    .option("--target-account <account>", "about this account or its user (Mastodon's target_account_id)")
    .option("--limit <n>", "at most this many (default 100)", positiveInt("--limit"))
    .option("--json", "one JSON object per line")
    .action(async (opts: { actor?: string; action?: string; targetType?: string; target?: string; targetAccount?: string; limit?: number; json?: boolean }, cmd: Command) => {
      const entries = await asActor(cmd, async (app, actor) => {
        const { auditTargetAccount, readAuditLog } = await import("../../src/admin/audit.ts");
        const { findAccountByRef } = await import("../../src/admin/listing.ts");
        const { isoTime } = await import("../../src/lib/iso-time.ts");
        const logs = readAuditLog(app, actor, {
          accountId: opts.actor !== undefined ? findAccountByRef(app, opts.actor).id : undefined,
          action: opts.action,
          targetType: opts.targetType,
          targetId: opts.target,
          targetAccount: opts.targetAccount !== undefined ? auditTargetAccount(app, actor, findAccountByRef(app, opts.targetAccount).id) : undefined,
          limit: opts.limit ?? 100,
        });
        return logs.map((l) => ({
          id: l.id,
          created_at: isoTime(l.createdAt),
          actor: l.actorName,
          actor_id: l.accountId,
          source: l.source,
          action: l.action,
          target_type: l.targetType,
          target_id: l.targetId,
          target_name: l.humanIdentifier,
          changes: l.changes,
        }));
      });
      if (opts.json) printRows(entries, [], true);
      else
        printRows(
          entries.map((e) => ({ ...e, target: `${e.target_type} ${e.target_name ?? e.target_id ?? ""}`.trim(), changes: changesText(e.changes) })),
          [...COLUMNS],
          false,
        );
    });
}

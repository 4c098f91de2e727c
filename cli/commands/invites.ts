import type { Command } from "commander";
import { AS_HELP, asActor, positiveInt } from "../admin-context.ts";
import { CliError } from "../errors.ts";
import { printRecord, printRows } from "../output.ts";

// roost invites create|list|expire: invite links as the user named by --as (or the owner),
// through the same use cases and policy as the rest of the admin CLI (src/admin/invites.ts).

const COLUMNS = [
  { key: "id", title: "id" },
  { key: "code", title: "code" },
  { key: "inviter", title: "inviter" },
  { key: "uses", title: "uses" },
  { key: "max_uses", title: "max uses" },
  { key: "expires_at", title: "expires" },
  { key: "state", title: "state" },
  { key: "autofollow", title: "autofollow" },
  { key: "comment", title: "comment" },
] as const;

const EXPIRES: Record<string, number | null> = { "30m": 1800, "1h": 3600, "6h": 21600, "12h": 43200, "1d": 86400, "1w": 604800, never: null };

function expiresIn(v: string): number | null {
  const k = v.trim().toLowerCase();
  if (k in EXPIRES) return EXPIRES[k];
  if (/^\d+$/.test(k) && Object.values(EXPIRES).includes(Number(k))) return Number(k);
  throw new CliError(`--expires-in must be one of ${Object.keys(EXPIRES).join(", ")}`);
}

function maxUses(v: string): number | null {
  const k = v.trim().toLowerCase();
  if (k === "unlimited" || k === "none") return null;
  if (!/^-?\d+$/.test(k) || Number(k) < 1) throw new CliError(`--max-uses must be a positive integer or "unlimited": ${v.slice(0, 40)}`);
  return Number(k);
}

export function registerInvitesCommands(program: Command): void {
  const invites = program
    .command("invites")
    .description("invite links: sign-ups with a code, limited in uses and time (they skip approval while the inviter may invite)")
    .option("--as <user>", AS_HELP);

  invites
    .command("create")
    .description("create an invite as --as (or the owner); prints its link")
    .option("--max-uses <n>", "how many sign-ups it allows (default unlimited)", maxUses)
    .option("--expires-in <period>", "30m, 1h, 6h, 12h, 1d, 1w or never (default never)", expiresIn)
    .option("--autofollow", "the newcomer follows the inviter")
    .option("--comment <text>", "a note for yourself (up to 420 characters)")
    .option("--json", "print the whole invite as one JSON line")
    .action(async (opts: { maxUses?: number | null; expiresIn?: number | null; autofollow?: boolean; comment?: string; json?: boolean }, cmd: Command) => {
      const row = await asActor(cmd, async (app, actor) => {
        const { createInvite, inviteRow } = await import("../../src/admin/invites.ts");
        const invite = createInvite(app, actor, { maxUses: opts.maxUses, expiresIn: opts.expiresIn, autofollow: opts.autofollow, comment: opts.comment });
        return inviteRow(app, { ...invite, inviterAccountId: actor.account.id, inviterUsername: actor.account.username });
      });
      if (opts.json) printRecord(row, true);
      else process.stdout.write(row.url + "\n");
    });

  invites
    .command("list")
    .description("invites, newest first: your own, or everyone's with --all (manage_invites)")
    .option("--all", "every user's invites")
    .option("--available", "only those that can still be used")
    .option("--expired", "only those expired or used up")
    .option("--limit <n>", "at most this many (default 1000)", positiveInt("--limit"))
    .option("--json", "one JSON object per line")
    .action(async (opts: { all?: boolean; available?: boolean; expired?: boolean; limit?: number; json?: boolean }, cmd: Command) => {
      if (opts.available && opts.expired) throw new CliError("--available and --expired exclude each other");
      const rows = await asActor(cmd, async (app, actor) => {
        const { listInvitesFor, inviteRow } = await import("../../src/admin/invites.ts");
        const state = opts.available ? "available" : opts.expired ? "expired" : undefined;
        return listInvitesFor(app, actor, { all: opts.all, state, limit: opts.limit }).map((i) => inviteRow(app, i));
      });
      printRows(rows, [...COLUMNS], opts.json);
    });

  invites
    .command("expire")
    .description("expire an invite at once (its record stays); yours, or anyone's with manage_invites")
    .argument("<invite>", "the invite's id or code")
    .option("--json", "print the invite as one JSON line")
    .action(async (ref: string, opts: { json?: boolean }, cmd: Command) => {
      const row = await asActor(cmd, async (app, actor) => {
        const { expireInvite, inviteRow, requireInvite } = await import("../../src/admin/invites.ts");
        const { findAccountById } = await import("../../src/storage/accounts.ts");
        const { findUserById } = await import("../../src/storage/users.ts");
        const invite = expireInvite(app, actor, requireInvite(app, ref));
        const inviter = findUserById(app.db, invite.userId);
        const account = inviter && findAccountById(app.db, inviter.accountId);
        return inviteRow(app, { ...invite, inviterAccountId: account?.id ?? "", inviterUsername: account?.username ?? "" });
      });
      printRecord(row, opts.json);
    });
}

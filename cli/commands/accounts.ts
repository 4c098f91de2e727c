import { type Command, Option } from "commander";
import { AS_HELP, asActor, positiveInt } from "../admin-context.ts";
import { printRecord, printRows } from "../output.ts";

const COLUMNS = [
  { key: "id", title: "id" },
  { key: "username", title: "username" },
  { key: "domain", title: "domain" },
  { key: "email", title: "email" },
  { key: "role", title: "role" },
  { key: "state", title: "state" },
  { key: "created_at", title: "created" },
] as const;

interface ListOptions {
  local?: boolean;
  remote?: boolean;
  status?: string;
  pending?: boolean;
  domain?: string;
  username?: string;
  displayName?: string;
  email?: string;
  ip?: string;
  staff?: boolean;
  role?: string[];
  invitedBy?: string;
  limit?: number;
  json?: boolean;
}

/** The states of a row in one word list: pending, disabled, silenced ... or active. */
function stateOf(r: Record<string, unknown>): string {
  const s = [
    r.domain === null && !r.approved ? "pending" : "",
    r.domain === null && !r.confirmed ? "unconfirmed" : "",
    r.disabled ? "disabled" : "",
    r.silenced ? "silenced" : "",
    r.suspended ? "suspended" : "",
    r.sensitized ? "sensitized" : "",
  ].filter(Boolean);
  return s.length ? s.join(",") : "active";
}

type AdminAccounts = typeof import("../../src/admin/accounts.ts");
type Account = ReturnType<AdminAccounts["requireAdminAccount"]>;
type Actor = Parameters<AdminAccounts["approveAccount"]>[1];
type App = Parameters<AdminAccounts["approveAccount"]>[0];

/** `roost accounts <verb> ACCOUNT`: one account changed, then shown (nothing when it is gone). */
function simple(accounts: Command, verb: string, description: string, pick: (m: AdminAccounts) => (app: App, actor: Actor, a: Account) => Account | void) {
  accounts
    .command(verb)
    .description(description)
    .argument("<account>", "id, username or user@domain")
    .option("--json", "print the account as one JSON line")
    .action(async (ref: string, opts: { json?: boolean }, cmd: Command) => {
      const row = await asActor(cmd, async (app, actor) => {
        const admin = await import("../../src/admin/accounts.ts");
        const { accountRows, findAccountByRef } = await import("../../src/admin/listing.ts");
        const account = findAccountByRef(app, ref);
        const changed = pick(admin)(app, actor, account);
        return changed ? accountRows(app, [changed])[0] : undefined;
      });
      if (row) printRecord({ ...row, state: stateOf(row) }, opts.json);
    });
}

export function registerAccountsCommands(program: Command): void {
  const accounts = program.command("accounts").description("moderate accounts (as the admin API does; audited)").option("--as <user>", AS_HELP);

  accounts
    .command("list")
    .description("list accounts, newest first (all of them unless filtered)")
    .option("--local", "local accounts only")
    .option("--remote", "remote accounts only")
    .addOption(new Option("--status <status>", "one state").choices(["active", "pending", "disabled", "silenced", "suspended", "sensitized"]))
    .option("--pending", "sign-ups awaiting approval (same as --status pending)")
    .option("--domain <domain>", "accounts of this domain")
    .option("--username <prefix>", "username starts with (case-insensitive)")
    .option("--display-name <prefix>", "display name starts with")
    .option("--email <prefix>", "e-mail address starts with")
    .option("--ip <address|cidr>", "signed up or in from this address or range")
    .option("--staff", "users whose role may manage reports")
    .option("--role <role...>", "users with these roles (names or ids; everyone: no role)")
    .option("--invited-by <account>", "users invited by this account")
    .option("--limit <n>", "at most this many", positiveInt("--limit"))
    .option("--json", "one JSON object per line")
    .action(async (opts: ListOptions, cmd: Command) => {
      const rows = await asActor(cmd, async (app, actor) => {
        const { staffRoleIds } = await import("../../src/admin/account-filters.ts");
        const { requireRole } = await import("../../src/admin/roles.ts");
        const { findAccountByRef, listAccountRows } = await import("../../src/admin/listing.ts");
        const { ipKeyRange } = await import("../../src/lib/ip-keys.ts");
        if (opts.local && opts.remote) throw new Error("--local and --remote exclude each other");
        if (opts.ip !== undefined && !ipKeyRange(opts.ip)) throw new Error(`--ip: not an address or CIDR range: ${opts.ip}`);
        const roleIds = opts.staff ? staffRoleIds(app) : opts.role?.map((r) => requireRole(app, r).id);
        const filter = {
          origin: opts.local ? ("local" as const) : opts.remote ? ("remote" as const) : undefined,
          status: (opts.pending ? "pending" : opts.status) as "pending" | undefined,
          byDomain: opts.domain,
          username: opts.username?.replace(/^@/, ""),
          displayName: opts.displayName,
          email: opts.email,
          ...(opts.ip !== undefined ? { ipRange: ipKeyRange(opts.ip) } : {}),
          roleIds,
          invitedBy: opts.invitedBy !== undefined ? findAccountByRef(app, opts.invitedBy).id : undefined,
        };
        return listAccountRows(app, actor, filter, opts.limit);
      });
      printRows(
        rows.map((r) => ({ ...r, state: stateOf(r) })),
        [...COLUMNS],
        opts.json,
      );
    });

  accounts
    .command("show")
    .description("an account with its moderation notes and warnings")
    .argument("<account>", "id, username or user@domain")
    .option("--json", "one JSON line")
    .action(async (ref: string, opts: { json?: boolean }, cmd: Command) => {
      const details = await asActor(cmd, async (app, actor) => {
        const { accountDetails, findAccountByRef } = await import("../../src/admin/listing.ts");
        return accountDetails(app, actor, findAccountByRef(app, ref));
      });
      printRecord(opts.json ? details : { ...details, state: stateOf(details) }, opts.json);
    });

  simple(accounts, "approve", "approve a sign-up awaiting approval", (m) => m.approveAccount);
  simple(accounts, "reject", "refuse a sign-up awaiting approval (its account is deleted)", (m) => m.rejectAccount);
  simple(accounts, "enable", "re-enable a disabled login", (m) => m.enableAccount);
  simple(accounts, "unsuspend", "lift a suspension (cancels the deletion of its data)", (m) => m.unsuspendAccount);
  simple(accounts, "unsilence", "lift a limit", (m) => m.unsilenceAccount);
  simple(accounts, "unsensitive", "stop marking the account's media sensitive", (m) => m.unsensitizeAccount);
  simple(accounts, "delete", "remove the data of a suspended account now (in the background, in batches)", (m) => m.deleteAccountData);
  for (const [verb, description] of [
    ["feature", "suggest the account to everyone (follow suggestions, source featured)"],
    ["unfeature", "stop featuring the account in follow suggestions"],
  ] as const) {
    accounts
      .command(verb)
      .description(description)
      .argument("<account>", "id, username or user@domain")
      .option("--json", "print the account as one JSON line")
      .action(async (ref: string, opts: { json?: boolean }, cmd: Command) => {
        const row = await asActor(cmd, async (app, actor) => {
          const featured = await import("../../src/admin/featured-accounts.ts");
          const { accountRows, findAccountByRef } = await import("../../src/admin/listing.ts");
          const change = verb === "feature" ? featured.featureAccount : featured.unfeatureAccount;
          return accountRows(app, [change(app, actor, findAccountByRef(app, ref))])[0];
        });
        printRecord({ ...row, state: stateOf(row) }, opts.json);
      });
  }

  accounts
    .command("featured")
    .description("the accounts featured in follow suggestions, in the order they were featured")
    .option("--json", "one JSON object per line")
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      const rows = await asActor(cmd, async (app, actor) => {
        const { listFeaturedAccounts } = await import("../../src/admin/featured-accounts.ts");
        const { accountRows } = await import("../../src/admin/listing.ts");
        return accountRows(app, listFeaturedAccounts(app, actor));
      });
      printRows(
        rows.map((r) => ({ ...r, state: stateOf(r) })),
        [...COLUMNS],
        opts.json,
      );
    });

  accounts
    .command("action")
    .description("act on an account with a warning: none, sensitive, disable, silence or suspend")
    .argument("<account>", "id, username or user@domain")
    .addOption(new Option("--type <type>", "what to do").choices(["none", "sensitive", "disable", "silence", "suspend"]).makeOptionMandatory())
    .option("--report <id>", "the report this answers (resolved with it)")
    .option("--preset <id>", "a warning preset's text (roost warning-presets list)")
    .option("--text <text>", "message to the user")
    .option("--no-notify", "do not notify the user")
    .action(async (ref: string, opts: { type: string; report?: string; preset?: string; text?: string; notify: boolean }, cmd: Command) => {
      const id = await asActor(cmd, async (app, actor) => {
        const { performAccountAction } = await import("../../src/admin/account-actions.ts");
        const { findAccountByRef } = await import("../../src/admin/listing.ts");
        const w = performAccountAction(app, actor, findAccountByRef(app, ref), {
          type: opts.type,
          reportId: opts.report,
          warningPresetId: opts.preset,
          text: opts.text,
          sendEmailNotification: opts.notify,
        });
        return w.id;
      });
      process.stdout.write(id + "\n");
    });

  accounts
    .command("role")
    .description("give a local user a role (everyone: take their role away)")
    .argument("<account>", "username or id")
    .argument("<role>", "role name or id (roost roles list)")
    .action(async (ref: string, roleRef: string, _opts: unknown, cmd: Command) => {
      const msg = await asActor(cmd, async (app, actor) => {
        const { changeUserRole, requireRole } = await import("../../src/admin/roles.ts");
        const { findAccountByRef } = await import("../../src/admin/listing.ts");
        const account = findAccountByRef(app, ref);
        const role = requireRole(app, roleRef);
        changeUserRole(app, actor, account, role);
        return `${account.username} has the role ${role.name || "everyone"}`;
      });
      process.stderr.write(msg + "\n");
    });

  accounts
    .command("note")
    .description("add a moderation note to an account, or delete one with --delete")
    .argument("<account>", "id, username or user@domain")
    .argument("[text]", "the note")
    .option("--delete <note-id>", "delete this note instead")
    .action(async (ref: string, text: string | undefined, opts: { delete?: string }, cmd: Command) => {
      const id = await asActor(cmd, async (app, actor) => {
        const { addNote, deleteNote } = await import("../../src/admin/notes.ts");
        const { findAccountByRef } = await import("../../src/admin/listing.ts");
        const account = findAccountByRef(app, ref);
        if (opts.delete !== undefined) return deleteNote(app, actor, "account", opts.delete).id;
        if (text === undefined) throw new Error("give the note's text, or --delete NOTE_ID");
        return addNote(app, actor, "account", account.id, text).id;
      });
      process.stdout.write(id + "\n");
    });
}

import type { Command } from "commander";
import { AS_HELP, asActor } from "../admin-context.ts";
import { printRows } from "../output.ts";

// roost settings get|set: the instance settings an admin changes while the server runs
// (src/admin/settings.ts). Stored in the database; config.json gives the defaults.

const COLUMNS = [
  { key: "key", title: "setting" },
  { key: "value", title: "value" },
  { key: "source", title: "source" },
  { key: "description", title: "description" },
] as const;

const KEYS_HELP = "registrations, approval, invites, invites-min-role, limited-federation, trends-review";

export function registerSettingsCommands(program: Command): void {
  const settings = program
    .command("settings")
    .description(`instance settings changed at run time (${KEYS_HELP}); audit-logged`)
    .option("--as <user>", AS_HELP);

  settings
    .command("get")
    .description("every setting as a table, or one setting's value alone")
    .argument("[key]", KEYS_HELP)
    .option("--json", "one JSON object per line")
    .action(async (key: string | undefined, opts: { json?: boolean }, cmd: Command) => {
      const rows = await asActor(cmd, async (app, actor) => {
        const { readSettings } = await import("../../src/admin/settings.ts");
        return readSettings(app, actor, key);
      });
      if (key !== undefined && !opts.json) process.stdout.write(rows[0].value + "\n");
      else printRows(rows as unknown as Record<string, unknown>[], [...COLUMNS], opts.json);
    });

  settings
    .command("set")
    .description("change a setting; prints the new value")
    .argument("<key>", KEYS_HELP)
    .argument("<value>", "open|approval|closed for registrations; on|off for switches; a role for invites-min-role")
    .option("--json", "print the setting as one JSON line")
    .action(async (key: string, value: string, opts: { json?: boolean }, cmd: Command) => {
      const row = await asActor(cmd, async (app, actor) => {
        const { changeSetting } = await import("../../src/admin/settings.ts");
        return changeSetting(app, actor, key, value);
      });
      if (opts.json) process.stdout.write(JSON.stringify(row) + "\n");
      else process.stdout.write(row.value + "\n");
      // As Mastodon's operators run tootctl domains purge --limited-federation-mode: what
      // arrived from the domains now out of bounds stays until purged.
      if (row.key === "limited-federation" && row.value === "on")
        process.stderr.write("content already received from domains without an allow is kept: `roost domains purge --limited-federation [--dry-run]` removes it\n");
    });
}

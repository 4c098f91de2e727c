import type { Command } from "commander";
import { AS_HELP, asActor } from "../admin-context.ts";
import { printRecord, printRows } from "../output.ts";

const COLUMNS = [
  { key: "id", title: "id" },
  { key: "name", title: "name" },
  { key: "position", title: "position" },
  { key: "highlighted", title: "badge" },
  { key: "color", title: "color" },
  { key: "users", title: "users" },
  { key: "permissions", title: "permissions" },
] as const;

interface RoleOptions {
  permissions?: string;
  position?: string;
  color?: string;
  highlighted?: boolean;
  name?: string;
  json?: boolean;
}

const list = (s: string | undefined) => (s === undefined ? undefined : s.split(/[\s,]+/).filter(Boolean));

function position(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (!/^-?\d+$/.test(v.trim())) throw new Error(`--position must be an integer: ${v}`);
  return Number(v);
}

export function registerRolesCommands(program: Command): void {
  const roles = program
    .command("roles")
    .description("roles: named permission sets with a position; nobody acts on an equal or higher role")
    .option("--as <user>", AS_HELP);

  roles
    .command("list")
    .description("every role, highest first (everyone: the base role of users without one)")
    .option("--json", "one JSON object per line")
    .action(async (opts: RoleOptions, cmd: Command) => {
      const rows = await asActor(cmd, async (app, actor) => {
        const { listAllRoles } = await import("../../src/admin/roles.ts");
        const { roleRow } = await import("../../src/admin/role-listing.ts");
        return listAllRoles(app, actor).map((r) => roleRow(app, r));
      });
      printRows(opts.json ? rows : rows.map((r) => ({ ...r, permissions: (r.permissions as string[]).join(",") || "-" })), [...COLUMNS], opts.json);
    });

  const withFields = (c: Command) =>
    c
      .option("--permissions <names>", "comma-separated permission names (e.g. manage_reports,manage_users; administrator: all)")
      .option("--position <n>", "rank: a higher position outranks a lower one")
      .option("--color <hex>", "badge colour, e.g. #ff0000")
      .option("--highlighted", "show the role as a badge on profiles")
      .option("--no-highlighted", "do not show it as a badge")
      .option("--json", "print the role as one JSON line");

  withFields(roles.command("create").description("create a role; prints it").argument("<name>", "the role's name")).action(
    async (name: string, opts: RoleOptions, cmd: Command) => {
      const row = await asActor(cmd, async (app, actor) => {
        const { createRole } = await import("../../src/admin/roles.ts");
        const { roleRow } = await import("../../src/admin/role-listing.ts");
        return roleRow(app, createRole(app, actor, { name, permissions: list(opts.permissions), position: position(opts.position), color: opts.color, highlighted: opts.highlighted }));
      });
      printRecord(row, opts.json);
    },
  );

  withFields(roles.command("update").description("change a role").argument("<role>", "name or id").option("--name <name>", "rename it")).action(
    async (ref: string, opts: RoleOptions, cmd: Command) => {
      const row = await asActor(cmd, async (app, actor) => {
        const { requireRole, updateUserRole } = await import("../../src/admin/roles.ts");
        const { roleRow } = await import("../../src/admin/role-listing.ts");
        const role = requireRole(app, ref);
        return roleRow(app, updateUserRole(app, actor, role, { name: opts.name, permissions: list(opts.permissions), position: position(opts.position), color: opts.color, highlighted: opts.highlighted }));
      });
      printRecord(row, opts.json);
    },
  );

  roles
    .command("delete")
    .description("delete a role; its users fall back to no role")
    .argument("<role>", "name or id")
    .action(async (ref: string, _opts: unknown, cmd: Command) => {
      const name = await asActor(cmd, async (app, actor) => {
        const { deleteUserRole, requireRole } = await import("../../src/admin/roles.ts");
        const role = requireRole(app, ref);
        deleteUserRole(app, actor, role);
        return role.name;
      });
      process.stderr.write(`deleted role ${name}\n`);
    });
}

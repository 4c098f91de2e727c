import { type Command, Option } from "commander";
import type { BuiltinRoleName } from "../../src/services/users.ts";
import { readStdin } from "../context.ts";
import { CliError } from "../errors.ts";
import { AS_HELP } from "../admin-context.ts";

interface UserCreateOptions {
  email: string;
  password?: string;
  passwordStdin?: boolean;
  role: BuiltinRoleName;
}

export function registerUserCommands(program: Command): void {
  const user = program.command("user").description("manage local users");
  user
    .command("create")
    .description("create a confirmed, approved local user; prints the new account id")
    .argument("<username>", "letters, numbers, underscores and dots")
    .requiredOption("--email <email>", "the user's e-mail address")
    .addOption(new Option("--password <password>", "sign-in password (visible in the process list: prefer --password-stdin)").conflicts("passwordStdin"))
    .option("--password-stdin", "read the password from standard input")
    .addOption(new Option("--role <role>", "the user's role (owner: every permission; admin, moderator: Mastodon's built-in roles)").choices(["user", "moderator", "admin", "owner"]).default("user"))
    .action(async (username: string, opts: UserCreateOptions, cmd: Command) => {
      let password = opts.password;
      if (opts.passwordStdin) {
        // One trailing newline belongs to `echo`, not to the password.
        password = (await readStdin()).replace(/\r?\n$/, "");
        if (password === "") throw new CliError("no password on standard input");
      }
      const { withApp } = await import("../with-app.ts");
      const { createUser } = await import("../../src/services/users.ts");
      const { account } = await withApp(cmd, (app) =>
        // No reserved-name check: the operator may create "admin" on purpose.
        createUser(app, { username, email: opts.email, password: password ?? null, role: opts.role, confirmed: true, approved: true }),
      );
      if (password === undefined) process.stderr.write(`note: ${username} has no password and cannot sign in with one\n`);
      process.stdout.write(account.id + "\n");
    });

  user
    .command("confirm")
    .description("confirm a user's e-mail address by hand (sign-ups through the API start unconfirmed)")
    .argument("<username>", "a local user")
    .action(async (username: string, _opts: unknown, cmd: Command) => {
      const { withApp } = await import("../with-app.ts");
      const { confirmUser } = await import("../../src/services/users.ts");
      const result = await withApp(cmd, (app) => confirmUser(app, username));
      if (!result) throw new CliError(`unknown user: ${username}`);
      const pending = result.user.approved ? "" : "; the account still awaits a moderator's approval";
      process.stderr.write(`${result.changed ? `confirmed ${username}` : `${username} was already confirmed`}${pending}\n`);
    });

  const twoFa = user.command("2fa").description("two-factor authentication of a user");
  twoFa
    .command("disable")
    .description("turn a user's two-factor authentication off (a lost phone); audit-logged as disable_2fa")
    .argument("<username>", "a local user")
    .option("--as <username>", AS_HELP)
    .action(async (username: string, _opts: unknown, cmd: Command) => {
      const { asActor } = await import("../admin-context.ts");
      const { adminDisableTwoFactor } = await import("../../src/admin/two-factor.ts");
      const changed = await asActor(cmd, (app, actor) => adminDisableTwoFactor(app, actor, username));
      process.stderr.write(changed ? `two-factor authentication disabled for ${username}\n` : `${username} had no two-factor authentication\n`);
    });

  user
    .command("archive")
    .description("write the user's archive (actor, posts, likes, bookmarks, media: Mastodon's layout) now; prints its path")
    .argument("<username>", "a local user")
    .action(async (username: string, _opts: unknown, cmd: Command) => {
      const { withApp } = await import("../with-app.ts");
      const { startOperatorArchive, requireArchiveFile } = await import("../../src/services/account-archives.ts");
      const { handleArchiveBuild } = await import("../../src/jobs/handlers/archive-build.ts");
      const path = await withApp(cmd, async (app) => {
        const archive = startOperatorArchive(app, username);
        if (!archive) return undefined;
        // The operator has the path: no mail to the user.
        await handleArchiveBuild(app, { archiveId: archive.id, notify: false });
        return requireArchiveFile(app, { id: archive.accountId }, archive.id).path;
      });
      if (!path) throw new CliError(`unknown user: ${username}`);
      process.stdout.write(path + "\n");
    });
}

import type { Command } from "commander";
import { isKnownScope, parseScopes } from "../../src/lib/scopes.ts";
import { CliError } from "../errors.ts";

export function registerTokenCommands(program: Command): void {
  const token = program.command("token").description("manage OAuth access tokens");
  token
    .command("create")
    .description("issue an access token for a local user (for scripts); prints the token alone")
    .argument("<username>", "a local user")
    .option("--scopes <scopes>", "space-separated OAuth scopes", "read write follow push")
    .action(async (username: string, opts: { scopes: string }, cmd: Command) => {
      const scopes = parseScopes(opts.scopes);
      if (scopes.length === 0) throw new CliError("--scopes must name at least one scope");
      const unknown = scopes.filter((s) => !isKnownScope(s));
      if (unknown.length > 0) throw new CliError(`unknown scope: ${unknown.join(", ")}`);
      const { withApp } = await import("../with-app.ts");
      const { CLI_APP, ensureBuiltinApp, issueToken } = await import("../../src/services/tokens.ts");
      const { findAccountByHandle } = await import("../../src/storage/accounts.ts");
      const { findUserByAccountId } = await import("../../src/storage/users.ts");
      const raw = await withApp(cmd, (app) => {
        const account = findAccountByHandle(app.db, username.replace(/^@/, ""), null);
        const user = account && findUserByAccountId(app.db, account.id);
        if (!user) throw new CliError(`unknown user: ${username}`);
        const cli = ensureBuiltinApp(app, CLI_APP);
        return issueToken(app, { userId: user.id, applicationId: cli.id, scopes }).token;
      });
      process.stdout.write(raw + "\n");
    });
}

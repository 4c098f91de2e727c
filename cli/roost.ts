import { Command } from "commander";
import { registerBackupCommands } from "./commands/backup.ts";
import { registerEmojiCommands } from "./commands/emoji.ts";
import { registerInitCommand } from "./commands/init.ts";
import { registerMediaCommands } from "./commands/media.ts";
import { registerMigrateCommand } from "./commands/migrate.ts";
import { registerSearchCommands } from "./commands/search.ts";
import { registerPruneCommand } from "./commands/prune.ts";
import { registerServeCommand } from "./commands/serve.ts";
import { registerStatusCommand } from "./commands/status.ts";
import { registerTokenCommands } from "./commands/token.ts";
import { registerUserCommands } from "./commands/user.ts";
import { registerAccountsCommands } from "./commands/accounts.ts";
import { registerReportsCommands } from "./commands/reports.ts";
import { registerRolesCommands } from "./commands/roles.ts";
import { registerAuditCommands } from "./commands/audit.ts";
import { registerWarningPresetsCommands } from "./commands/warning-presets.ts";
import { registerDomainsCommands } from "./commands/domains.ts";
import { registerAnnouncementsCommands } from "./commands/announcements.ts";
import { registerInvitesCommands } from "./commands/invites.ts";
import { registerSettingsCommands } from "./commands/settings.ts";
import { errorDetail, errorLine } from "./errors.ts";
import { ROOST_VERSION } from "../src/version.ts";

// The operator interface: /work/shared/spec/cli.md. Results go to stdout, everything else to
// stderr; a failure is one line on stderr and a non-zero exit code.

export function buildProgram(): Command {
  const program = new Command("roost")
    .description("roost: a federated social publishing server for small instances")
    .version(ROOST_VERSION, "-V, --version", "print roost's version")
    .option("--data-dir <dir>", "data directory: database, media, keys, config, backups (default: $ROOST_DATA_DIR, else ./data)")
    .option("--verbose", "print stack traces with errors")
    .showSuggestionAfterError()
    .configureHelp({ showGlobalOptions: true });
  registerInitCommand(program);
  registerServeCommand(program);
  registerUserCommands(program);
  registerTokenCommands(program);
  registerBackupCommands(program);
  registerMigrateCommand(program);
  registerSearchCommands(program);
  registerEmojiCommands(program);
  registerMediaCommands(program);
  registerAccountsCommands(program);
  registerReportsCommands(program);
  registerRolesCommands(program);
  registerAuditCommands(program);
  registerWarningPresetsCommands(program);
  registerDomainsCommands(program);
  registerAnnouncementsCommands(program);
  registerInvitesCommands(program);
  registerSettingsCommands(program);
  registerStatusCommand(program);
  registerPruneCommand(program);
  return program;
}

async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (e) {
    const verbose = program.opts<{ verbose?: boolean }>().verbose === true;
    process.stderr.write(`error: ${verbose ? errorDetail(e) : errorLine(e)}\n`);
    process.exitCode = 1;
  }
}

await main(process.argv);

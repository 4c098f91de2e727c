import type { Command } from "commander";
import { openDatabase } from "../../src/db/db.ts";
import { migrate } from "../../src/db/migrate.ts";
import { backupBeforeMigrating } from "../../src/ops/backup-schedule.ts";
import { databasePath } from "../../src/services/init.ts";
import { dataDirOf, requireInitialised, requireWritable } from "../context.ts";

export function registerMigrateCommand(program: Command): void {
  program
    .command("migrate")
    .description("apply pending database migrations, after a backup (serve also applies them at start)")
    .action(async (_opts: unknown, cmd: Command) => {
      const dataDir = dataDirOf(cmd);
      requireInitialised(dataDir);
      requireWritable(dataDir);
      const backup = await backupBeforeMigrating(dataDir);
      if (backup) process.stderr.write(`backed up to ${backup.path} before applying ${backup.pending.length} migration(s)\n`);
      // The database alone: createApp would migrate before we could report what it applied.
      const db = openDatabase(databasePath(dataDir));
      try {
        const applied = migrate(db);
        if (applied.length === 0) process.stderr.write("database is up to date\n");
        for (const name of applied) process.stderr.write(`applied ${name}\n`);
      } finally {
        db.close();
      }
    });
}

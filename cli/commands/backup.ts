import type { Command } from "commander";
import { resolve } from "node:path";
import { dataDirOf, requireInitialised } from "../context.ts";

export function registerBackupCommands(program: Command): void {
  const backup = program.command("backup").description("snapshot or restore database + media + config");
  backup
    .command("create")
    .description("consistent online snapshot into one .tar.gz; prints its path")
    .option("--out <file>", "archive path (default: DATA_DIR/backups/roost-YYYYMMDD-HHMMSS.tar.gz, UTC)")
    .action(async (opts: { out?: string }, cmd: Command) => {
      const dataDir = dataDirOf(cmd);
      requireInitialised(dataDir);
      const { createBackup } = await import("../backup-archive.ts");
      const path = await createBackup(dataDir, opts.out);
      process.stdout.write(path + "\n");
    });
  backup
    .command("restore")
    .description("unpack a backup into an empty or non-initialised data dir")
    .argument("<file>", "a file made by `roost backup create`")
    .action(async (file: string, _opts: unknown, cmd: Command) => {
      const dataDir = dataDirOf(cmd);
      const { restoreBackup } = await import("../backup-archive.ts");
      await restoreBackup(dataDir, file);
      process.stderr.write(`restored ${resolve(file)} into ${dataDir}\n`);
    });
}

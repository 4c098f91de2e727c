import type { Command } from "commander";
import { tmpdir } from "node:os";
import { resolve } from "node:path";
import { dataDirOf, requireInitialised, requireWritable } from "../context.ts";

export function registerBackupCommands(program: Command): void {
  const backup = program.command("backup").description("snapshot, restore or verify database + media + config");
  backup
    .command("create")
    .description("consistent online snapshot into one .tar.gz; prints its path")
    .option("--out <file>", "archive path (default: DATA_DIR/backups/roost-YYYYMMDD-HHMMSS.tar.gz, UTC)")
    .action(async (opts: { out?: string }, cmd: Command) => {
      const dataDir = dataDirOf(cmd);
      requireInitialised(dataDir);
      requireWritable(dataDir);
      const { createBackup } = await import("../../src/ops/backup-archive.ts");
      const path = await createBackup(dataDir, { out: opts.out });
      process.stdout.write(path + "\n");
    });
  backup
    .command("restore")
    .description("unpack a backup into an empty or non-initialised data dir")
    .argument("<file>", "a file made by `roost backup create`")
    .action(async (file: string, _opts: unknown, cmd: Command) => {
      const dataDir = dataDirOf(cmd);
      requireWritable(dataDir);
      const { restoreBackup } = await import("../../src/ops/backup-archive.ts");
      await restoreBackup(dataDir, file);
      process.stderr.write(`restored ${resolve(file)} into ${dataDir}\n`);
    });
  backup
    .command("verify")
    .description("restore a backup into a temporary dir and check it: integrity, foreign keys, migrations, row counts, media files")
    .argument("<file>", "a file made by `roost backup create`")
    .option("--json", "print the report as JSON")
    .option("--tmp-dir <dir>", "where to restore it (default: the system's temporary dir, $TMPDIR)")
    .action(async (file: string, opts: { json?: boolean; tmpDir?: string }) => {
      const { verifyBackup } = await import("../../src/ops/backup-verify.ts");
      const { formatVerification } = await import("../format.ts");
      const report = await verifyBackup(resolve(file), resolve(opts.tmpDir ?? tmpdir()));
      process.stdout.write(opts.json ? JSON.stringify(report, null, 2) + "\n" : formatVerification(report));
    });
}

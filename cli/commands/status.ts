import type { Command } from "commander";
import { loadConfig } from "../../src/config/config.ts";
import { dataDirOf, requireInitialised } from "../context.ts";

export function registerStatusCommand(program: Command): void {
  program
    .command("status")
    .description("the instance at a glance: server, database, media, job queues, federation, backups, storage")
    .option("--json", "print the report as JSON")
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      const dataDir = dataDirOf(cmd);
      requireInitialised(dataDir);
      const { collectStatus } = await import("../../src/ops/status.ts");
      const { formatStatus } = await import("../format.ts");
      const report = await collectStatus(loadConfig(dataDir));
      process.stdout.write(opts.json ? JSON.stringify(report, null, 2) + "\n" : formatStatus(report, Date.now()));
    });
}

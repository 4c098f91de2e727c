import type { Command } from "commander";
import { progressBar } from "../progress.ts";

export function registerSearchCommands(program: Command): void {
  const search = program.command("search").description("the search indexes (src/search/DESIGN.md)");
  search
    .command("reindex")
    .description("rebuild the status and account search indexes from the database (a running server keeps serving); prints the counts as JSON")
    .action(async (_opts: unknown, cmd: Command) => {
      const { withApp } = await import("../with-app.ts");
      const { rebuildSearchIndexes } = await import("../../src/search/rebuild.ts");
      const bar = progressBar("statuses");
      const started = performance.now();
      const result = await withApp(cmd, (app) => rebuildSearchIndexes(app.db, (done, total) => bar.update(done, total)));
      bar.end();
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      process.stderr.write(`indexed ${result.indexed} of ${result.statuses} statuses and ${result.accounts} accounts in ${seconds} s\n`);
      process.stdout.write(JSON.stringify(result) + "\n");
    });
}

import type { Command } from "commander";
import { getPriority, setPriority } from "node:os";
import { withApp } from "../with-app.ts";

// `roost prune [--dry-run]`: the storage budget's pruning (issue 14 part 2) run now, with a
// progress bar on stderr. A real run first plans (a dry run) to know the totals of its bar.
// It runs at a lower CPU priority than the server it runs beside: on a small machine the
// server's requests come first and the prune takes what is left.

/** Added to the process's niceness for a real run (what `nice` adds by default). */
const PRUNE_NICENESS = 10;

function progressBar(stream: NodeJS.WriteStream, totals: Record<string, number>): (p: { phase: string; done: number }) => void {
  let lastLine = "";
  const lastPercent = new Map<string, number>();
  return ({ phase, done }) => {
    const total = totals[phase] ?? 0;
    if (total === 0 && done === 0) return;
    const fraction = total > 0 ? Math.min(1, done / total) : 1;
    const width = 30;
    const filled = Math.round(fraction * width);
    const line = `${phase.padEnd(8)} [${"#".repeat(filled)}${".".repeat(width - filled)}] ${String(Math.round(fraction * 100)).padStart(3)}%  ${done}/${total}`;
    if (stream.isTTY) {
      if (line !== lastLine) stream.write(`\r${line}`);
      if (fraction === 1) stream.write("\n");
    } else {
      // Not a terminal (a log file): a line per tenth.
      const percent = Math.floor(fraction * 10) * 10;
      if (percent !== lastPercent.get(phase)) stream.write(line + "\n");
      lastPercent.set(phase, percent);
    }
    lastLine = line;
  };
}

export function registerPruneCommand(program: Command): void {
  program
    .command("prune")
    .description("remove old remote content nobody here touched (cached remote media, remote posts, remote profiles), to stay within storageBudgetBytes and remoteContentRetentionDays")
    .option("--dry-run", "show what would go, remove nothing")
    .option("--json", "print the report as JSON")
    .action(async (opts: { dryRun?: boolean; json?: boolean }, cmd: Command) => {
      const { pruneStorage } = await import("../../src/ops/storage-prune.ts");
      const { formatPruneReport } = await import("../format.ts");
      const report = await withApp(cmd, async (app) => {
        const plan = await pruneStorage(app, { dryRun: true });
        if (opts.dryRun) return plan;
        try {
          setPriority(Math.min(19, getPriority() + PRUNE_NICENESS));
        } catch {
          // Not allowed here (some containers): the prune runs at the server's priority.
        }
        const totals = { media: plan.media.items, statuses: plan.statuses.count, accounts: plan.accounts.count };
        return pruneStorage(app, { ownConnection: true, onProgress: progressBar(process.stderr, totals) });
      });
      if (report.warning) process.stderr.write(`warning: ${report.warning}\n`);
      process.stdout.write(opts.json ? JSON.stringify(report, null, 2) + "\n" : formatPruneReport(report));
    });
}

import type { Command } from "commander";
import { CliError } from "../errors.ts";

// `roost media migrate --to s3|local` and `roost media prune` (issue 10 parts 5 and 6).

/** A one-line progress bar on a terminal; a line per tenth otherwise (logs, CI). */
function progressBar(label: string): (p: { done: number; total: number }) => void {
  const tty = process.stderr.isTTY === true;
  let lastTenth = -1;
  return ({ done, total }) => {
    const ratio = total === 0 ? 1 : done / total;
    if (tty) {
      const width = 30;
      const filled = Math.round(ratio * width);
      process.stderr.write(`\r${label} [${"#".repeat(filled)}${" ".repeat(width - filled)}] ${done}/${total}`);
      if (done === total) process.stderr.write("\n");
      return;
    }
    const tenth = Math.floor(ratio * 10);
    if (tenth !== lastTenth) {
      lastTenth = tenth;
      process.stderr.write(`${label}: ${done}/${total} files\n`);
    }
  };
}

const DAY = 86_400_000;

export function registerMediaCommands(program: Command): void {
  const media = program.command("media").description("media files: storage backend and the remote media cache");
  media
    .command("migrate")
    .description("move every stored media file to another storage backend, then switch mediaStorage to it")
    .requiredOption("--to <storage>", "s3 or local")
    .action(async (opts: { to: string }, cmd: Command) => {
      if (opts.to !== "s3" && opts.to !== "local") throw new CliError(`--to must be s3 or local, not ${JSON.stringify(opts.to)}`);
      const to = opts.to;
      const { withApp } = await import("../with-app.ts");
      const { migrateMedia } = await import("../../src/services/media-migration.ts");
      const { updateConfigFile } = await import("../../src/config/config.ts");
      const result = await withApp(cmd, async (app) => {
        const r = await migrateMedia(app, to, progressBar(`moving media to ${to}`));
        updateConfigFile(app.config.dataDir, "mediaStorage", to);
        return r;
      });
      for (const name of result.missing) process.stderr.write(`missing: ${name}\n`);
      process.stderr.write(`mediaStorage is now ${to}: ${result.copied} files moved, ${result.present} already there, ${result.missing.length} missing\n`);
      process.stdout.write(JSON.stringify(result) + "\n");
    });
  media
    .command("prune")
    .description("remove cached copies of remote media (entities point at the origin again; fetched again on demand)")
    .option("--days <n>", "remove copies cached more than N days ago that no local account interacted with", "7")
    .option("--max-bytes <n>", "then evict the least recently cached copies until the cache holds at most N bytes (default: remoteMediaCacheBytes)")
    .option("--dry-run", "report what would be removed without removing it")
    .action(async (opts: { days: string; maxBytes?: string; dryRun?: boolean }, cmd: Command) => {
      const days = Number(opts.days);
      if (!Number.isSafeInteger(days) || days < 0) throw new CliError(`--days must be a whole number of days, not ${JSON.stringify(opts.days)}`);
      const maxBytes = opts.maxBytes === undefined ? undefined : Number(opts.maxBytes);
      if (maxBytes !== undefined && (!Number.isSafeInteger(maxBytes) || maxBytes < 0)) throw new CliError(`--max-bytes must be a number of bytes, not ${JSON.stringify(opts.maxBytes)}`);
      const { withApp } = await import("../with-app.ts");
      const { pruneRemoteMedia } = await import("../../src/services/remote-media-prune.ts");
      const result = await withApp(cmd, (app) =>
        pruneRemoteMedia(app, { olderThan: days * DAY, maxBytes: maxBytes ?? app.config.remoteMediaCacheBytes, dryRun: opts.dryRun === true }),
      );
      const verb = opts.dryRun ? "would free" : "freed";
      process.stderr.write(`${verb} ${result.bytes} bytes in ${result.entries} cached remote files; the cache holds ${result.remainingBytes} bytes\n`);
      process.stdout.write(JSON.stringify(result) + "\n");
    });
}

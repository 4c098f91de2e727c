import { type Command, InvalidArgumentError } from "commander";
import { type Config, isInitialised, loadConfig, startedByNpm } from "../../src/config/config.ts";
import { createLog } from "../../src/lib/log.ts";
import { initDataDir } from "../../src/services/init.ts";
import { dataDirOf, requireWritable } from "../context.ts";
import { CliError, errorLine } from "../errors.ts";

/** After a stop signal, connections still open this long (slow clients, streams) are cut. */
const DRAIN_CONNECTIONS_MS = 10_000;
/** After a clean close, something still holding the event loop must not keep us alive. */
const EXIT_GRACE_MS = 3_000;
/** How often a server that npm started checks that npm's shell is still its parent. */
const PARENT_CHECK_MS = 500;

export function parsePort(v: string): number {
  if (!/^\d{1,5}$/.test(v) || Number(v) > 65535) throw new InvalidArgumentError("expected a port number (0-65535)");
  return Number(v);
}

export function registerServeCommand(program: Command): void {
  program
    .command("serve")
    .description("run the server: HTTP API, streaming, federation and jobs (initialises an empty data dir for localhost)")
    .option("--host <addr>", "address to listen on (default: 127.0.0.1, or ROOST_HOST)")
    .option("--port <n>", "port to listen on (default: 3000, or ROOST_PORT)", parsePort)
    .action(async (opts: { host?: string; port?: number }, cmd: Command) => {
      const dataDir = dataDirOf(cmd);
      const overrides: Partial<Config> = {};
      if (opts.host !== undefined) overrides.host = opts.host;
      if (opts.port !== undefined) overrides.port = opts.port;
      // Validate ROOST_* before touching the disk, so a typo never half-initialises a dir.
      let config = loadConfig(dataDir, overrides);
      const log = createLog(config.logLevel);
      requireWritable(dataDir);
      if (!isInitialised(dataDir)) {
        // The zero-config default: `npm start` in a fresh checkout just works, on localhost.
        initDataDir(dataDir, { domain: `localhost:${config.port}`, protocol: "http" });
        log.info("initialised data dir", { dataDir, domain: `localhost:${config.port}` });
        config = loadConfig(dataDir, overrides);
      }
      const { backupBeforeMigrating } = await import("../../src/ops/backup-schedule.ts");
      const backup = await backupBeforeMigrating(dataDir);
      if (backup) log.info("backed up before migrating", { path: backup.path, pending: backup.pending });
      const { closeApp, createApp, startServer } = await import("../../src/main.ts");
      const { AdminSocketBusyError, startAdminSocket } = await import("../../src/ops/admin-socket.ts");
      const app = createApp(config, { log });
      let running: Awaited<ReturnType<typeof startServer>> | undefined;
      let admin: Awaited<ReturnType<typeof startAdminSocket>>;
      try {
        // Before the port: a second serve on this data dir stops here (the admin socket answers).
        admin = await startAdminSocket(app, () => running?.url ?? "");
        running = await startServer(app, { host: config.host, port: config.port });
      } catch (e) {
        await admin?.close();
        await closeApp(app);
        if (e instanceof AdminSocketBusyError) throw new CliError(e.message);
        throw e;
      }
      const server = running;
      const adminSocket = admin;
      // The handlers go in before the listening line: whoever reads that line may signal at once,
      // and a SIGTERM that arrived before them would take the default action (death by signal).
      const stopped = new Promise<void>((resolve) => {
        let stopping = false;
        const stop = (reason: string) => {
          if (stopping) return;
          stopping = true;
          // From here on a second SIGINT or SIGTERM takes the default action: the kernel ends
          // the process at once, even while a request holds the event loop, which a handler in
          // JavaScript would have to wait for.
          process.off("SIGINT", stop);
          process.off("SIGTERM", stop);
          clearInterval(parentCheck);
          log.info("stopping", { reason });
          const cut = setTimeout(() => server.server.closeAllConnections(), DRAIN_CONNECTIONS_MS);
          cut.unref();
          server.close().then(
            async () => {
              clearTimeout(cut);
              await adminSocket?.close();
              resolve();
            },
            (e: unknown) => {
              process.stderr.write(`error: shutdown failed: ${errorLine(e)}\n`);
              process.exit(1);
            },
          );
        };
        process.on("SIGINT", stop);
        process.on("SIGTERM", stop);
        // `kill` on `npm start` or `npx roost serve` reaches npm, which passes the signal to its
        // `sh -c`; dash dies of it without passing it on, and this process would run on as an
        // orphan. So under npm, losing the parent (a new ppid) counts as a stop signal.
        const parent = process.ppid;
        const parentCheck = startedByNpm()
          ? setInterval(() => process.ppid !== parent && stop("parent exited"), PARENT_CHECK_MS).unref()
          : undefined;
      });
      process.stderr.write(`listening on ${server.url}\n`);
      await stopped;
      setTimeout(() => {
        log.warn("open handles remain after shutdown; exiting anyway");
        process.exit(0);
      }, EXIT_GRACE_MS).unref();
    });
}

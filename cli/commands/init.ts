import { type Command, Option } from "commander";
import { baseUrl, type Registrations } from "../../src/config/config.ts";
import { initDataDir } from "../../src/services/init.ts";
import { dataDirOf } from "../context.ts";

interface InitOptions {
  domain: string;
  protocol: "https" | "http";
  title?: string;
  registrations?: Registrations;
  allowPrivateAddresses?: boolean;
}

export function registerInitCommand(program: Command): void {
  program
    .command("init")
    .description("create the data dir: database, instance keys and config.json (refuses an initialised dir)")
    .requiredOption("--domain <host[:port]>", "the domain the world sees; handles are user@domain")
    .addOption(new Option("--protocol <protocol>", "public URL scheme (http only for local and test set-ups)").choices(["https", "http"]).default("https"))
    .option("--title <text>", "instance title")
    .addOption(new Option("--registrations <mode>", "who may sign up").choices(["open", "approval", "closed"]))
    .option("--allow-private-addresses", "let federation reach loopback and private-range hosts")
    .action((opts: InitOptions, cmd: Command) => {
      const dataDir = dataDirOf(cmd);
      initDataDir(dataDir, {
        domain: opts.domain,
        protocol: opts.protocol,
        title: opts.title,
        registrations: opts.registrations,
        allowPrivateAddresses: opts.allowPrivateAddresses ?? false,
      });
      process.stderr.write(`initialised ${dataDir} for ${baseUrl({ protocol: opts.protocol, domain: opts.domain.toLowerCase() })}\n`);
    });
}

import type { Command } from "commander";
import { AS_HELP, asActor } from "../admin-context.ts";
import { printRecord, printRows } from "../output.ts";

// roost domains: the admin API's domain blocks and allows (manage_federation), as the same
// admin/ use cases, so the audit log records them and the same enforcement follows.

const BLOCK_COLUMNS = [
  { key: "id", title: "id" },
  { key: "domain", title: "domain" },
  { key: "severity", title: "severity" },
  { key: "reject_media", title: "reject media" },
  { key: "reject_reports", title: "reject reports" },
  { key: "obfuscate", title: "obfuscate" },
  { key: "created_at", title: "created" },
  { key: "public_comment", title: "public comment" },
] as const;
const ALLOW_COLUMNS = [
  { key: "id", title: "id" },
  { key: "domain", title: "domain" },
  { key: "created_at", title: "created" },
] as const;

interface BlockOptions {
  severity?: string;
  rejectMedia?: boolean;
  rejectReports?: boolean;
  publicComment?: string;
  privateComment?: string;
  obfuscate?: boolean;
  json?: boolean;
}

const EVERYTHING = { limit: Number.MAX_SAFE_INTEGER };

export function registerDomainsCommands(program: Command): void {
  const domains = program
    .command("domains")
    .description("domain blocks (also imported from Mastodon's CSV export) and the allow-list of limited federation (a block covers subdomains)")
    .option("--as <user>", AS_HELP);

  domains
    .command("list")
    .description("domain blocks, newest first (--allows: the allow-list)")
    .option("--allows", "list the allowed domains instead")
    .option("--json", "one JSON object per line")
    .action(async (opts: { allows?: boolean; json?: boolean }, cmd: Command) => {
      const rows = await asActor(cmd, async (app, actor) => {
        const { domainAllowRow, domainBlockRow } = await import("../../src/admin/domain-listing.ts");
        if (opts.allows) {
          const { listDomainAllows } = await import("../../src/admin/domain-allows.ts");
          return listDomainAllows(app, actor, EVERYTHING).map(domainAllowRow);
        }
        const { listDomainBlocks } = await import("../../src/admin/domain-blocks.ts");
        return listDomainBlocks(app, actor, EVERYTHING).map(domainBlockRow);
      });
      printRows(rows, [...(opts.allows ? ALLOW_COLUMNS : BLOCK_COLUMNS)], opts.json);
    });

  domains
    .command("block")
    .description("block a domain, or change the block it already has; prints the block")
    .argument("<domain>", "the domain (its subdomains are covered too)")
    .option("--severity <s>", "silence (default), suspend or noop")
    .option("--reject-media", "keep no media from it")
    .option("--no-reject-media", "accept its media again")
    .option("--reject-reports", "ignore reports from it")
    .option("--no-reject-reports", "accept its reports again")
    .option("--public-comment <text>", "shown on the public list of blocks")
    .option("--private-comment <text>", "for staff only")
    .option("--obfuscate", "partly mask the domain on the public list")
    .option("--no-obfuscate", "show the domain in full")
    .option("--json", "print the block as one JSON line")
    .action(async (domain: string, opts: BlockOptions, cmd: Command) => {
      const row = await asActor(cmd, async (app, actor) => {
        const { blockOrUpdateDomain } = await import("../../src/admin/domain-blocks.ts");
        const { domainBlockRow } = await import("../../src/admin/domain-listing.ts");
        const severity = opts.severity as "silence" | "suspend" | "noop" | undefined;
        const { rejectMedia, rejectReports, publicComment, privateComment, obfuscate } = opts;
        return domainBlockRow(blockOrUpdateDomain(app, actor, { domain, severity, rejectMedia, rejectReports, publicComment, privateComment, obfuscate }));
      });
      printRecord(row, opts.json);
    });

  domains
    .command("unblock")
    .description("lift a block (the silences and suspensions it made are lifted too)")
    .argument("<domain>", "the blocked domain, or the block's id")
    .action(async (ref: string, _opts: unknown, cmd: Command) => {
      const name = await asActor(cmd, async (app, actor) => {
        const { requireDomainBlock, unblockDomain } = await import("../../src/admin/domain-blocks.ts");
        const block = requireDomainBlock(app, ref, true);
        unblockDomain(app, actor, block);
        return block.domain;
      });
      process.stderr.write(`unblocked ${name}\n`);
    });

  domains
    .command("import")
    .description("block the domains of a Mastodon domain block list export (CSV: #domain,#severity,#reject_media,...); prints the new blocks")
    .argument("<file>", "the CSV file (- for stdin)")
    .option("--json", "one JSON object per line")
    .action(async (file: string, opts: { json?: boolean }, cmd: Command) => {
      const { readFileSync } = await import("node:fs");
      const { basename } = await import("node:path");
      let text: string;
      try {
        text = readFileSync(file === "-" ? 0 : file, "utf8");
      } catch (e) {
        throw new Error(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
      }
      const result = await asActor(cmd, async (app, actor) => {
        const { importDomainBlocks } = await import("../../src/admin/domain-import.ts");
        const { domainBlockRow } = await import("../../src/admin/domain-listing.ts");
        const r = importDomainBlocks(app, actor, text, file === "-" ? "stdin" : basename(file));
        return { rows: r.created.map(domainBlockRow), skipped: r.skipped };
      });
      for (const s of result.skipped) process.stderr.write(`skipped ${s.domain}: ${s.reason}\n`);
      process.stderr.write(`imported ${result.rows.length}, skipped ${result.skipped.length}\n`);
      printRows(result.rows, [...BLOCK_COLUMNS], opts.json);
    });

  domains
    .command("allow")
    .description("add a domain to the allow-list (limitedFederation); prints it")
    .argument("<domain>", "the domain")
    .option("--json", "print it as one JSON line")
    .action(async (domain: string, opts: { json?: boolean }, cmd: Command) => {
      const row = await asActor(cmd, async (app, actor) => {
        const { allowDomain } = await import("../../src/admin/domain-allows.ts");
        const { domainAllowRow } = await import("../../src/admin/domain-listing.ts");
        return domainAllowRow(allowDomain(app, actor, domain));
      });
      printRecord(row, opts.json);
    });

  domains
    .command("disallow")
    .description("remove a domain from the allow-list (in limited federation its accounts are then suspended)")
    .argument("<domain>", "the allowed domain, or the allow's id")
    .action(async (ref: string, _opts: unknown, cmd: Command) => {
      const name = await asActor(cmd, async (app, actor) => {
        const { disallowDomain, requireDomainAllow } = await import("../../src/admin/domain-allows.ts");
        const allow = requireDomainAllow(app, ref, true);
        disallowDomain(app, actor, allow);
        return allow.domain;
      });
      process.stderr.write(`disallowed ${name}\n`);
    });

  domains
    .command("purge")
    .description("remove the remote accounts of domains without a trace: posts, media, follows, then the accounts, and the domains' custom emojis (tootctl domains purge); a queued job, in batches")
    .argument("[domains...]", "the domains (a port is not part of the name)")
    .option("--limited-federation", "every domain without an allow instead (limited federation must be on)")
    .option("--dry-run", "only count what would be removed")
    .option("--json", "print the counts as one JSON line")
    .action(async (names: string[], opts: { limitedFederation?: boolean; dryRun?: boolean; json?: boolean }, cmd: Command) => {
      const plan = await asActor(cmd, async (app, actor) => {
        const { planDomainPurge, startDomainPurge } = await import("../../src/admin/domain-purge.ts");
        const input = { domains: names, limitedFederation: opts.limitedFederation === true };
        return opts.dryRun ? planDomainPurge(app, actor, input) : startDomainPurge(app, actor, input);
      });
      const row = { domains: plan.hosts.join(" "), accounts: plan.accounts, statuses: plan.statuses, custom_emojis: plan.emojis, dry_run: opts.dryRun === true };
      process.stderr.write(
        opts.dryRun
          ? `dry run: would remove ${plan.accounts} accounts, ${plan.statuses} posts and ${plan.emojis} custom emojis\n`
          : `removing ${plan.accounts} accounts, ${plan.statuses} posts and ${plan.emojis} custom emojis: queued, done in batches by the server's jobs\n`,
      );
      printRecord(row, opts.json);
    });
}

import type { Command } from "commander";
import { AS_HELP, asActor } from "../admin-context.ts";
import { printRecord, printRows } from "../output.ts";

// roost email-blocks: e-mail domain blocks and blocked addresses (canonical e-mail blocks),
// the admin API's use cases (manage_blocks), so the audit log records them.

const DOMAIN_COLUMNS = [
  { key: "id", title: "id" },
  { key: "domain", title: "domain" },
  { key: "allow_with_approval", title: "approval" },
  { key: "created_at", title: "created" },
] as const;
const ADDRESS_COLUMNS = [
  { key: "id", title: "id" },
  { key: "canonical_email_hash", title: "canonical email hash" },
  { key: "created_at", title: "created" },
] as const;

const EVERYTHING = { limit: Number.MAX_SAFE_INTEGER };

export function registerEmailBlocksCommands(program: Command): void {
  const blocks = program
    .command("email-blocks")
    .description("refuse sign-ups from e-mail domains (and the domains whose mail they handle) or from single addresses")
    .option("--as <user>", AS_HELP);

  blocks
    .command("list")
    .description("blocked e-mail domains, newest first (--addresses: the blocked addresses, as hashes)")
    .option("--addresses", "list the blocked addresses instead")
    .option("--json", "one JSON object per line")
    .action(async (opts: { addresses?: boolean; json?: boolean }, cmd: Command) => {
      const rows = await asActor(cmd, async (app, actor) => {
        const listing = await import("../../src/admin/block-listing.ts");
        if (opts.addresses) {
          const { listCanonicalEmailBlocks } = await import("../../src/admin/canonical-email-blocks.ts");
          return listCanonicalEmailBlocks(app, actor, EVERYTHING).map(listing.canonicalEmailBlockRow);
        }
        const { listEmailDomainBlocks } = await import("../../src/admin/email-domain-blocks.ts");
        return listEmailDomainBlocks(app, actor, EVERYTHING).map(listing.emailDomainBlockRow);
      });
      printRows(rows, [...(opts.addresses ? ADDRESS_COLUMNS : DOMAIN_COLUMNS)], opts.json);
    });

  blocks
    .command("add")
    .description("block an e-mail domain and its subdomains; prints the block")
    .argument("<domain>", "the domain")
    .option("--allow-with-approval", "let sign-ups through, held for a moderator's approval")
    .option("--json", "print the block as one JSON line")
    .action(async (domain: string, opts: { allowWithApproval?: boolean; json?: boolean }, cmd: Command) => {
      const row = await asActor(cmd, async (app, actor) => {
        const { blockEmailDomain } = await import("../../src/admin/email-domain-blocks.ts");
        const { emailDomainBlockRow } = await import("../../src/admin/block-listing.ts");
        return emailDomainBlockRow(blockEmailDomain(app, actor, { domain, allowWithApproval: opts.allowWithApproval ?? false }));
      });
      printRecord(row, opts.json);
    });

  blocks
    .command("remove")
    .description("lift an e-mail domain block")
    .argument("<domain>", "the blocked domain, or the block's id")
    .action(async (ref: string, _opts: unknown, cmd: Command) => {
      const name = await asActor(cmd, async (app, actor) => {
        const { requireEmailDomainBlock, unblockEmailDomain } = await import("../../src/admin/email-domain-blocks.ts");
        const block = requireEmailDomainBlock(app, ref, true);
        unblockEmailDomain(app, actor, block);
        return block.domain;
      });
      process.stderr.write(`unblocked ${name}\n`);
    });

  blocks
    .command("add-address")
    .description("block an address however it is spelled (case, dots, +tags); kept only as a hash. Prints the block")
    .argument("<email>", "the address, or the SHA-256 hex of its canonical form (--hash)")
    .option("--hash", "the argument is a canonical_email_hash")
    .option("--json", "print the block as one JSON line")
    .action(async (value: string, opts: { hash?: boolean; json?: boolean }, cmd: Command) => {
      const row = await asActor(cmd, async (app, actor) => {
        const { blockCanonicalEmail } = await import("../../src/admin/canonical-email-blocks.ts");
        const { canonicalEmailBlockRow } = await import("../../src/admin/block-listing.ts");
        return canonicalEmailBlockRow(blockCanonicalEmail(app, actor, opts.hash ? { hash: value } : { email: value }));
      });
      printRecord(row, opts.json);
    });

  blocks
    .command("remove-address")
    .description("lift an address block")
    .argument("<email>", "the address, its hash, or the block's id")
    .action(async (ref: string, _opts: unknown, cmd: Command) => {
      const hash = await asActor(cmd, async (app, actor) => {
        const { requireCanonicalEmailBlock, unblockCanonicalEmail } = await import("../../src/admin/canonical-email-blocks.ts");
        const block = requireCanonicalEmailBlock(app, ref, true);
        unblockCanonicalEmail(app, actor, block);
        return block.hash;
      });
      process.stderr.write(`unblocked ${hash}\n`);
    });

  blocks
    .command("test")
    .description("the address blocks an address meets (none: nothing printed with --json, an empty table without)")
    .argument("<email>", "the address")
    .option("--json", "one JSON object per line")
    .action(async (email: string, opts: { json?: boolean }, cmd: Command) => {
      const rows = await asActor(cmd, async (app, actor) => {
        const { testCanonicalEmail } = await import("../../src/admin/canonical-email-blocks.ts");
        const { canonicalEmailBlockRow } = await import("../../src/admin/block-listing.ts");
        return testCanonicalEmail(app, actor, email).map(canonicalEmailBlockRow);
      });
      printRows(rows, [...ADDRESS_COLUMNS], opts.json);
    });
}

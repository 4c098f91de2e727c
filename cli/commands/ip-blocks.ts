import type { Command } from "commander";
import { AS_HELP, asActor } from "../admin-context.ts";
import { printRecord, printRows } from "../output.ts";

// roost ip-blocks: address ranges refused at sign-up, held for approval, or refused every
// request (no_access), the admin API's use cases (manage_blocks). A running server sees a
// change within seconds.

const COLUMNS = [
  { key: "id", title: "id" },
  { key: "ip", title: "ip" },
  { key: "severity", title: "severity" },
  { key: "expires_at", title: "expires" },
  { key: "created_at", title: "created" },
  { key: "comment", title: "comment" },
] as const;

const EVERYTHING = { limit: Number.MAX_SAFE_INTEGER };
const SEVERITY_HELP = "sign_up_requires_approval, sign_up_block or no_access";

interface BlockOptions {
  severity?: string;
  comment?: string;
  expiresIn?: string;
  json?: boolean;
}

/** Seconds, or "never" to clear an expiry on update. */
function expiresIn(v: string | undefined): number | null | undefined {
  if (v === undefined) return undefined;
  if (v === "never") return null;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new Error("--expires-in must be a positive number of seconds (or never)");
  return n;
}

export function registerIpBlocksCommands(program: Command): void {
  const blocks = program
    .command("ip-blocks")
    .description("IP address ranges (IPv4 or IPv6, an address or a CIDR) refused at sign-up or altogether")
    .option("--as <user>", AS_HELP);

  blocks
    .command("list")
    .description("every IP block, newest first")
    .option("--json", "one JSON object per line")
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      const rows = await asActor(cmd, async (app, actor) => {
        const { listIpBlocks } = await import("../../src/admin/ip-blocks.ts");
        const { ipBlockRow } = await import("../../src/admin/block-listing.ts");
        return listIpBlocks(app, actor, EVERYTHING).map(ipBlockRow);
      });
      printRows(rows, [...COLUMNS], opts.json);
    });

  blocks
    .command("add")
    .description("block an address or a range; prints the block")
    .argument("<ip>", "an address (192.0.2.7, 2001:db8::1) or a CIDR (192.0.2.0/24, 2001:db8::/32)")
    .requiredOption("--severity <s>", SEVERITY_HELP)
    .option("--comment <text>", "why (for staff)")
    .option("--expires-in <seconds>", "lift it after this many seconds")
    .option("--json", "print the block as one JSON line")
    .action(async (ip: string, opts: BlockOptions, cmd: Command) => {
      const row = await asActor(cmd, async (app, actor) => {
        const { blockIp } = await import("../../src/admin/ip-blocks.ts");
        const { ipBlockRow } = await import("../../src/admin/block-listing.ts");
        return ipBlockRow(blockIp(app, actor, { ip, severity: opts.severity, comment: opts.comment, expiresIn: expiresIn(opts.expiresIn) ?? undefined }));
      });
      printRecord(row, opts.json);
    });

  blocks
    .command("update")
    .description("change a block's range, severity, comment or expiry; prints it")
    .argument("<ip>", "the blocked address or range, or the block's id")
    .option("--ip <ip>", "the new address or range")
    .option("--severity <s>", SEVERITY_HELP)
    .option("--comment <text>", "why (for staff)")
    .option("--expires-in <seconds>", "lift it after this many seconds from now (never: keep it)")
    .option("--json", "print the block as one JSON line")
    .action(async (ref: string, opts: BlockOptions & { ip?: string }, cmd: Command) => {
      const row = await asActor(cmd, async (app, actor) => {
        const { changeIpBlock, requireIpBlock } = await import("../../src/admin/ip-blocks.ts");
        const { ipBlockRow } = await import("../../src/admin/block-listing.ts");
        const block = requireIpBlock(app, ref, true);
        return ipBlockRow(changeIpBlock(app, actor, block, { ip: opts.ip, severity: opts.severity, comment: opts.comment, expiresIn: expiresIn(opts.expiresIn) }));
      });
      printRecord(row, opts.json);
    });

  blocks
    .command("remove")
    .description("lift a block")
    .argument("<ip>", "the blocked address or range, or the block's id")
    .action(async (ref: string, _opts: unknown, cmd: Command) => {
      const ip = await asActor(cmd, async (app, actor) => {
        const { requireIpBlock, unblockIp } = await import("../../src/admin/ip-blocks.ts");
        const block = requireIpBlock(app, ref, true);
        unblockIp(app, actor, block);
        return block.ip;
      });
      process.stderr.write(`unblocked ${ip}\n`);
    });
}

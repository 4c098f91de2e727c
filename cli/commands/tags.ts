import type { Command } from "commander";
import { AS_HELP, asActor } from "../admin-context.ts";
import { printRecord, printRows } from "../output.ts";

// roost tags: hashtag moderation (manage_taxonomies), as PUT /api/v1/admin/tags/:id does it.

const COLUMNS = [
  { key: "id", title: "id" },
  { key: "name", title: "name" },
  { key: "usable", title: "usable" },
  { key: "listable", title: "listable" },
  { key: "trendable", title: "trendable" },
  { key: "requires_review", title: "review" },
  { key: "reviewed_at", title: "reviewed" },
] as const;

const STATUSES = ["reviewed", "unreviewed", "pending_review"];

interface SetOptions {
  displayName?: string;
  usable?: boolean;
  listable?: boolean;
  trendable?: boolean;
  json?: boolean;
}

export function registerTagsCommands(program: Command): void {
  const tags = program.command("tags").description("hashtag moderation: usable, listable (search, suggestions), trendable").option("--as <user>", AS_HELP);

  tags
    .command("list")
    .description("hashtags, newest first")
    .option("--name <prefix>", "names starting with this")
    .option("--status <s>", "reviewed, unreviewed or pending_review (trending, not reviewed)")
    .option("--limit <n>", "at most this many (default 100)", "100")
    .option("--json", "one JSON object per line")
    .action(async (opts: { name?: string; status?: string; limit: string; json?: boolean }, cmd: Command) => {
      if (opts.status !== undefined && !STATUSES.includes(opts.status)) throw new Error(`--status must be one of ${STATUSES.join(", ")}`);
      const limit = Number(opts.limit);
      if (!Number.isInteger(limit) || limit < 1) throw new Error("--limit must be a positive integer");
      const rows = await asActor(cmd, async (app, actor) => {
        const { listAdminTags } = await import("../../src/admin/tags.ts");
        const { adminTagRow } = await import("../../src/admin/block-listing.ts");
        const status = opts.status as "reviewed" | "unreviewed" | "pending_review" | undefined;
        return listAdminTags(app, actor, { limit }, { name: opts.name, status }).map((t) => adminTagRow(t, app.config.trendsRequireReview));
      });
      printRows(rows, [...COLUMNS], opts.json);
    });

  tags
    .command("set")
    .description("change a hashtag's flags or the letter case of its name; prints it")
    .argument("<tag>", "the hashtag (with or without #), or its id")
    .option("--display-name <name>", "the same name in other letter case")
    .option("--usable", "posts may use it")
    .option("--no-usable", "refuse local posts with it; link it to no new post")
    .option("--listable", "show it in search and suggestions")
    .option("--no-listable", "leave it out of search and suggestions")
    .option("--trendable", "it may trend")
    .option("--no-trendable", "it never trends")
    .option("--json", "print it as one JSON line")
    .action(async (ref: string, opts: SetOptions, cmd: Command) => {
      const row = await asActor(cmd, async (app, actor) => {
        const { moderateTag, requireAdminTag } = await import("../../src/admin/tags.ts");
        const { adminTagRow } = await import("../../src/admin/block-listing.ts");
        const tag = requireAdminTag(app, ref, true);
        const after = moderateTag(app, actor, tag, { displayName: opts.displayName, usable: opts.usable, listable: opts.listable, trendable: opts.trendable });
        return adminTagRow(after, app.config.trendsRequireReview);
      });
      printRecord(row, opts.json);
    });
}

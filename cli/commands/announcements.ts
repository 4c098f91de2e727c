import type { Command } from "commander";
import { AS_HELP, asActor } from "../admin-context.ts";
import { printRecord, printRows } from "../output.ts";

// roost announcements: what staff post to every user's apps (manage_announcements), through
// the same admin/ use cases as /api/roost/v1/admin/announcements, so each change is audited. Changes
// reach the apps of connected users through jobs that the running `roost serve` picks up.

const COLUMNS = [
  { key: "id", title: "id" },
  { key: "published", title: "published" },
  { key: "scheduled_at", title: "scheduled" },
  { key: "starts_at", title: "starts" },
  { key: "ends_at", title: "ends" },
  { key: "all_day", title: "all day" },
  { key: "text", title: "text" },
] as const;

interface FieldOptions {
  text?: string;
  startsAt?: string;
  endsAt?: string;
  allDay?: boolean;
  scheduledAt?: string;
  json?: boolean;
}

const TIME_HELP = "ISO 8601 (2030-05-01T18:00:00Z, or a date); \"\" clears it";

function withFieldOptions(c: Command): Command {
  return c
    .option("--starts-at <time>", `start of the announced event, with --ends-at; ${TIME_HELP}`)
    .option("--ends-at <time>", `end of the event; the announcement is withdrawn then; ${TIME_HELP}`)
    .option("--all-day", "the event lasts whole days (apps show dates only)")
    .option("--no-all-day", "the event has times of day")
    .option("--scheduled-at <time>", `publish at this time instead of now; ${TIME_HELP}`)
    .option("--json", "print it as one JSON line");
}

const inputOf = (o: FieldOptions) => ({ text: o.text, startsAt: o.startsAt, endsAt: o.endsAt, allDay: o.allDay, scheduledAt: o.scheduledAt });

export function registerAnnouncementsCommands(program: Command): void {
  const announcements = program
    .command("announcements")
    .description("announcements shown in every user's apps (GET /api/v1/announcements)")
    .option("--as <user>", AS_HELP);

  announcements
    .command("list")
    .description("every announcement, published or not, newest first")
    .option("--json", "one JSON object per line")
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      const rows = await asActor(cmd, async (app, actor) => {
        const { announcementRow, listAnnouncementsForStaff } = await import("../../src/admin/announcements.ts");
        return listAnnouncementsForStaff(app, actor).map(announcementRow);
      });
      printRows(rows, [...COLUMNS], opts.json);
    });

  withFieldOptions(
    announcements
      .command("create")
      .description("post an announcement (published now unless --scheduled-at is in the future); prints it")
      .argument("<text>", "plain text: links, @mentions, #hashtags and :custom_emoji: are rendered"),
  ).action(async (text: string, opts: FieldOptions, cmd: Command) => {
    const row = await asActor(cmd, async (app, actor) => {
      const { announcementRow, createAnnouncement } = await import("../../src/admin/announcements.ts");
      return announcementRow(createAnnouncement(app, actor, { ...inputOf(opts), text }));
    });
    printRecord(row, opts.json);
  });

  withFieldOptions(
    announcements
      .command("update")
      .description("change an announcement's text or times (apps showing it get the new version); prints it")
      .argument("<id>", "the announcement's id")
      .option("--text <text>", "the new text"),
  ).action(async (id: string, opts: FieldOptions, cmd: Command) => {
    const row = await asActor(cmd, async (app, actor) => {
      const { announcementRow, requireAnnouncement, updateAnnouncement } = await import("../../src/admin/announcements.ts");
      return announcementRow(updateAnnouncement(app, actor, requireAnnouncement(app, actor, id), inputOf(opts)));
    });
    printRecord(row, opts.json);
  });

  for (const [name, description] of [
    ["publish", "publish an announcement now (a scheduled time is dropped); prints it"],
    ["unpublish", "withdraw an announcement from the apps (it can be published again); prints it"],
  ] as const) {
    announcements
      .command(name)
      .description(description)
      .argument("<id>", "the announcement's id")
      .option("--json", "print it as one JSON line")
      .action(async (id: string, opts: { json?: boolean }, cmd: Command) => {
        const row = await asActor(cmd, async (app, actor) => {
          const m = await import("../../src/admin/announcements.ts");
          const a = m.requireAnnouncement(app, actor, id);
          return m.announcementRow(name === "publish" ? m.publishAnnouncement(app, actor, a) : m.unpublishAnnouncement(app, actor, a));
        });
        printRecord(row, opts.json);
      });
  }

  announcements
    .command("delete")
    .description("delete an announcement with its reactions")
    .argument("<id>", "the announcement's id")
    .action(async (id: string, _opts: unknown, cmd: Command) => {
      await asActor(cmd, async (app, actor) => {
        const { destroyAnnouncement, requireAnnouncement } = await import("../../src/admin/announcements.ts");
        destroyAnnouncement(app, actor, requireAnnouncement(app, actor, id));
      });
      process.stderr.write(`deleted announcement ${id}\n`);
    });
}

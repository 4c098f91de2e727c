import type { Command } from "commander";
import { AS_HELP, asActor, positiveInt } from "../admin-context.ts";
import { printRecord, printRows } from "../output.ts";

const COLUMNS = [
  { key: "id", title: "id" },
  { key: "state", title: "state" },
  { key: "category", title: "category" },
  { key: "reporter", title: "reporter" },
  { key: "target", title: "target" },
  { key: "assigned", title: "assigned" },
  { key: "created_at", title: "created" },
  { key: "comment", title: "comment" },
] as const;

type ReportsModule = typeof import("../../src/admin/reports.ts");
type Report = ReturnType<ReportsModule["requireReport"]>;

/** `roost reports <verb> ID [--note TEXT]`: a transition, then the report shown. */
function transition(reports: Command, verb: string, description: string, run: (m: ReportsModule) => (...a: any[]) => Report, withNote = false) {
  const c = reports.command(verb).description(description).argument("<id>", "report id").option("--json", "print the report as one JSON line");
  if (withNote) c.option("--note <text>", "a note added with it");
  c.action(async (id: string, opts: { json?: boolean; note?: string }, cmd: Command) => {
    const record = await asActor(cmd, async (app, actor) => {
      const m = await import("../../src/admin/reports.ts");
      const { reportRecord } = await import("../../src/admin/report-listing.ts");
      const report = run(m)(app, actor, m.requireReport(app, id), opts.note);
      return reportRecord(app, report, false);
    });
    printRecord(record, opts.json);
  });
}

export function registerReportsCommands(program: Command): void {
  const reports = program.command("reports").description("moderate reports (as the admin API does; audited)").option("--as <user>", AS_HELP);

  reports
    .command("list")
    .description("reports, newest first: unresolved ones unless --resolved or --all")
    .option("--resolved", "resolved reports only")
    .option("--all", "resolved and unresolved")
    .option("--account <account>", "filed by this account")
    .option("--target <account>", "about this account")
    .option("--limit <n>", "at most this many", positiveInt("--limit"))
    .option("--json", "one JSON object per line")
    .action(async (opts: { resolved?: boolean; all?: boolean; account?: string; target?: string; limit?: number; json?: boolean }, cmd: Command) => {
      const rows = await asActor(cmd, async (app, actor) => {
        const { listReportsForModeration } = await import("../../src/admin/reports.ts");
        const { reportRecord } = await import("../../src/admin/report-listing.ts");
        const { findAccountByRef } = await import("../../src/admin/listing.ts");
        const filter = {
          state: opts.all ? ("all" as const) : opts.resolved ? ("resolved" as const) : ("unresolved" as const),
          accountId: opts.account !== undefined ? findAccountByRef(app, opts.account).id : undefined,
          targetAccountId: opts.target !== undefined ? findAccountByRef(app, opts.target).id : undefined,
        };
        const out = [];
        let maxId: string | undefined;
        const want = opts.limit ?? Infinity;
        for (;;) {
          const size = Math.min(500, want - out.length);
          if (size <= 0) break;
          const page = listReportsForModeration(app, actor, { ...filter, maxId, limit: size });
          out.push(...page.map((r) => reportRecord(app, r, false)));
          if (page.length < size) break;
          maxId = page[page.length - 1].id;
        }
        return out;
      });
      printRows(rows, [...COLUMNS], opts.json);
    });

  reports
    .command("show")
    .description("a report with its statuses' ids, rules and notes")
    .argument("<id>", "report id")
    .option("--json", "one JSON line")
    .action(async (id: string, opts: { json?: boolean }, cmd: Command) => {
      const record = await asActor(cmd, async (app, actor) => {
        const { requireReport } = await import("../../src/admin/reports.ts");
        const { reportRecord } = await import("../../src/admin/report-listing.ts");
        const { requireCan } = await import("../../src/admin/actor.ts");
        requireCan(actor, "manage_reports");
        return reportRecord(app, requireReport(app, id), true);
      });
      printRecord(record, opts.json);
    });

  transition(reports, "assign", "assign the report to yourself (the --as user)", (m) => m.assignReportToSelf);
  transition(reports, "unassign", "take the report off whoever has it", (m) => m.unassignReport);
  transition(reports, "resolve", "mark the report resolved", (m) => m.resolveReport, true);
  transition(reports, "reopen", "mark a resolved report unresolved again", (m) => m.reopenReport, true);

  reports
    .command("note")
    .description("add a note to a report, or delete one with --delete")
    .argument("<id>", "report id")
    .argument("[text]", "the note")
    .option("--delete <note-id>", "delete this note instead")
    .action(async (id: string, text: string | undefined, opts: { delete?: string }, cmd: Command) => {
      const noteId = await asActor(cmd, async (app, actor) => {
        const { requireReport } = await import("../../src/admin/reports.ts");
        const { addNote, deleteNote } = await import("../../src/admin/notes.ts");
        const report = requireReport(app, id);
        if (opts.delete !== undefined) return deleteNote(app, actor, "report", opts.delete).id;
        if (text === undefined) throw new Error("give the note's text, or --delete NOTE_ID");
        return addNote(app, actor, "report", report.id, text).id;
      });
      process.stdout.write(noteId + "\n");
    });
}

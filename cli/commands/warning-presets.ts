import type { Command } from "commander";
import { AS_HELP, asActor } from "../admin-context.ts";
import { printRows } from "../output.ts";

export function registerWarningPresetsCommands(program: Command): void {
  const presets = program
    .command("warning-presets")
    .description("texts to send with account actions (warning_preset_id, roost accounts action --preset)")
    .option("--as <user>", AS_HELP);
  presets
    .command("list")
    .description("every preset")
    .option("--json", "one JSON object per line")
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      const rows = await asActor(cmd, async (app, actor) => {
        const { listPresets } = await import("../../src/admin/warning-presets.ts");
        return listPresets(app, actor).map((p) => ({ id: p.id, title: p.title, text: p.text }));
      });
      printRows(rows, [{ key: "id", title: "id" }, { key: "title", title: "title" }, { key: "text", title: "text" }], opts.json);
    });
  presets
    .command("create")
    .description("add a preset; prints its id")
    .argument("<text>", "the warning's text")
    .option("--title <title>", "a short name for it")
    .action(async (text: string, opts: { title?: string }, cmd: Command) => {
      const id = await asActor(cmd, async (app, actor) => {
        const { createPreset } = await import("../../src/admin/warning-presets.ts");
        return createPreset(app, actor, { text, title: opts.title }).id;
      });
      process.stdout.write(id + "\n");
    });
  presets
    .command("delete")
    .description("remove a preset")
    .argument("<id>", "preset id")
    .action(async (id: string, _opts: unknown, cmd: Command) => {
      await asActor(cmd, async (app, actor) => {
        const { deletePreset } = await import("../../src/admin/warning-presets.ts");
        deletePreset(app, actor, id);
      });
    });
}

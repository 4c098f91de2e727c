import type { Command } from "commander";
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { CliError } from "../errors.ts";

// Custom emoji, as Mastodon's `tootctl emoji` (import of a pack of images named by shortcode)
// plus single add, list and remove. Files: PNG, GIF or WebP, at most 50 KB (the roost seed).

interface AddOptions {
  category?: string;
  unlisted?: boolean;
}

interface ImportOptions extends AddOptions {
  prefix?: string;
  suffix?: string;
  overwrite?: boolean;
}

export function registerEmojiCommands(program: Command): void {
  const emoji = program.command("emoji").description("manage the instance's custom emoji");

  emoji
    .command("add")
    .description("add a custom emoji from a PNG, GIF or WebP file of at most 50 KB")
    .argument("<shortcode>", "letters, numbers and underscores, at least 2 (used as :shortcode:)")
    .argument("<file>", "the image")
    .option("--category <name>", "group the emoji under this category in the picker")
    .option("--unlisted", "keep it out of the emoji picker (it still works in text)")
    .action(async (shortcode: string, file: string, opts: AddOptions, cmd: Command) => {
      let data: Buffer;
      try {
        data = readFileSync(file);
      } catch (e) {
        throw new CliError(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
      }
      const { contentTypeOfName } = await import("../emoji-pack.ts");
      const { withApp } = await import("../with-app.ts");
      const { createCustomEmoji, sniffEmojiType } = await import("../../src/services/custom-emojis.ts");
      const created = await withApp(cmd, (app) =>
        createCustomEmoji(app, {
          shortcode: shortcode.replace(/^:|:$/g, ""),
          data,
          // The bytes decide; the name is only a fallback so that a wrong one reads as "invalid".
          contentType: sniffEmojiType(data) ?? contentTypeOfName(basename(file)),
          category: opts.category ?? null,
          visibleInPicker: !opts.unlisted,
        }),
      );
      process.stdout.write(`${created.shortcode}\n`);
    });

  emoji
    .command("import")
    .description("import a pack: a .tar.gz or .zip of PNG, GIF and WebP files named by shortcode; existing shortcodes are skipped")
    .argument("<pack>", "the archive")
    .option("--category <name>", "group the imported emoji under this category")
    .option("--unlisted", "keep the imported emoji out of the emoji picker")
    .option("--prefix <text>", "put this before every shortcode")
    .option("--suffix <text>", "put this after every shortcode")
    .option("--overwrite", "replace the image of emoji that exist already instead of skipping them")
    .action(async (pack: string, opts: ImportOptions, cmd: Command) => {
      const { readEmojiPack, contentTypeOfName } = await import("../emoji-pack.ts");
      const { withApp } = await import("../with-app.ts");
      const { errorLine } = await import("../errors.ts");
      const { EMOJI_MAX_BYTES, createCustomEmoji, replaceCustomEmojiImage } = await import("../../src/services/custom-emojis.ts");
      const { findLocalEmojiIgnoringCase } = await import("../../src/storage/custom-emojis.ts");
      const entries = readEmojiPack(pack, EMOJI_MAX_BYTES);
      const counts = { imported: 0, updated: 0, skipped: 0, failed: 0 };
      await withApp(cmd, async (app) => {
        for (const entry of entries) {
          const shortcode = `${opts.prefix ?? ""}${entry.shortcode}${opts.suffix ?? ""}`;
          // Mastodon skips a shortcode taken already, whatever its case (unless --overwrite).
          const existing = findLocalEmojiIgnoringCase(app.db, shortcode);
          if (existing && !opts.overwrite) {
            counts.skipped++;
            continue;
          }
          try {
            if (!entry.data) throw new CliError(entry.error ?? "unreadable");
            if (existing) {
              await replaceCustomEmojiImage(app, existing, entry.data, contentTypeOfName(entry.name));
              counts.updated++;
            } else {
              await createCustomEmoji(app, {
                shortcode,
                data: entry.data,
                contentType: contentTypeOfName(entry.name),
                category: opts.category ?? null,
                visibleInPicker: !opts.unlisted,
              });
              counts.imported++;
            }
            process.stdout.write(`${shortcode}\n`);
          } catch (e) {
            counts.failed++;
            process.stderr.write(`failed: ${entry.name}: ${errorLine(e)}\n`);
          }
        }
      });
      const { imported, updated, skipped, failed } = counts;
      process.stderr.write(`imported ${imported}, updated ${updated}, skipped ${skipped}, failed to import ${failed}\n`);
      if (failed > 0) process.exitCode = 1;
    });

  emoji
    .command("list")
    .description("list the local custom emoji: shortcode, category, picker visibility, size, URL")
    .option("--json", "print a JSON array (Mastodon's CustomEmoji entities plus size and file)")
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      const { withApp } = await import("../with-app.ts");
      const { listLocalEmojis } = await import("../../src/storage/custom-emojis.ts");
      const { toApiCustomEmoji } = await import("../../src/serializers/custom-emoji.ts");
      const rows = await withApp(cmd, (app) =>
        listLocalEmojis(app.db).map((e) => ({
          ...toApiCustomEmoji(app, e),
          category: e.category,
          size: e.imageSize,
          disabled: e.disabled,
        })),
      );
      if (opts.json) {
        process.stdout.write(JSON.stringify(rows, null, 2) + "\n");
        return;
      }
      for (const e of rows) {
        const flags = [e.visible_in_picker ? "listed" : "unlisted", e.disabled ? "disabled" : ""].filter(Boolean).join(",");
        process.stdout.write(`:${e.shortcode}:\t${e.category ?? "-"}\t${flags}\t${e.size ?? "?"} B\t${e.url}\n`);
      }
    });

  emoji
    .command("remove")
    .description("remove a local custom emoji and its files (posts keep the :shortcode: as text)")
    .argument("<shortcode>", "the emoji's shortcode")
    .action(async (shortcode: string, _opts: unknown, cmd: Command) => {
      const { withApp } = await import("../with-app.ts");
      const { removeCustomEmoji } = await import("../../src/services/custom-emojis.ts");
      const code = shortcode.replace(/^:|:$/g, "");
      const removed = await withApp(cmd, (app) => removeCustomEmoji(app, code));
      if (!removed) throw new CliError(`unknown emoji: ${code}`);
      process.stderr.write(`removed :${code}:\n`);
    });
}

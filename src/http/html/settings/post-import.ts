import { esc, layout } from "../layout.ts";
import { settingsNav } from "./nav.ts";
import { megabytes } from "../../../lib/sizes.ts";

export interface PostImportView {
  id: string;
  filename: string;
  deliver: boolean;
  state: "queued" | "in_progress" | "finished" | "failed";
  error: string | null;
  total: number;
  processed: number;
  imported: number;
  boosts: number;
  other: number;
  notes: { uri: string; note: string }[];
  notedCount: number;
}

const STYLE = "main{max-width:40rem}ul.imports li{margin-bottom:.75rem}label.check{font-weight:400}";

function progress(i: PostImportView): string {
  switch (i.state) {
    case "queued":
      return "Waiting: the archive is about to be read.";
    case "failed":
      return `Refused: ${i.error ?? "the archive could not be imported."}`;
    case "in_progress":
      return `In progress, ${i.processed} of ${i.total} posts processed, ${i.imported} imported.`;
    case "finished":
      return `Finished, ${i.processed} of ${i.total} posts processed, ${i.imported} imported.`;
  }
}

function importItem(i: PostImportView): string {
  const skipped = [
    i.boosts ? `${i.boosts} boost(s) skipped (boosts are not imported)` : "",
    i.other ? `${i.other} other item(s) skipped (not a post this server can read)` : "",
  ].filter((x) => x !== "");
  const notes = i.notedCount
    ? `<details><summary>${esc(i.notedCount)} post(s) skipped or imported in part</summary><ul>${i.notes
        .map((n) => `<li><code>${esc(n.uri)}</code>: ${esc(n.note)}</li>`)
        .join("")}${i.notedCount > i.notes.length ? `<li>… and ${esc(i.notedCount - i.notes.length)} more</li>` : ""}</ul></details>`
    : "";
  return `<li id="post-import-${esc(i.id)}"><strong>${esc(i.filename || "archive")}</strong>${i.deliver ? " (sent to followers)" : ""}:
<span class="progress"${i.state === "failed" ? ' role="alert"' : ""}>${esc(progress(i))}</span>
${i.state === "in_progress" ? `<progress max="${esc(i.total)}" value="${esc(i.processed)}" aria-label="Progress">${esc(i.processed)}/${esc(i.total)}</progress>` : ""}
${skipped.length ? `<p class="skipped">${esc(skipped.join("; "))}.</p>` : ""}${notes}</li>`;
}

/** "Import your posts": the upload form and the imports with their progress and reports. */
export function postImportPage(o: { nonce: string; csrf: string; maxBytes: number; imports: PostImportView[]; error?: string }): string {
  const busy = o.imports.some((i) => i.state === "queued" || i.state === "in_progress");
  const body = `${settingsNav("/settings/import-export")}
<h1>Import your posts</h1>
<p>Upload the archive you requested from your old Mastodon account (a ZIP file, up to ${esc(megabytes(o.maxBytes))}). Your posts are added to this account with their original dates, visibility, content warnings, replies to each other and media. Boosts are not imported.</p>
<p><a href="/settings/import-export">Back to import and export</a></p>
${o.error ? `<p class="error" role="alert">${esc(o.error)}</p>` : ""}
<form method="post" action="/settings/post_import" enctype="multipart/form-data">
<input type="hidden" name="authenticity_token" value="${esc(o.csrf)}">
<label for="post-import-archive">Archive (ZIP)</label>
<input id="post-import-archive" type="file" name="archive" accept=".zip,application/zip" required>
<label class="check"><input type="checkbox" name="send_to_followers" value="1"> Send to followers: deliver the imported posts to your followers and their home timelines (otherwise they only appear on your profile)</label>
<div class="actions"><button type="submit">Import posts</button></div>
</form>
${o.imports.length ? `<h2>Your post imports</h2>${busy ? '<p class="muted"><a href="/settings/post_import">Reload</a> to see the progress.</p>' : ""}<ul class="imports">${o.imports.map(importItem).join("")}</ul>` : ""}`;
  return layout({ title: "Import your posts", body, nonce: o.nonce, style: STYLE });
}

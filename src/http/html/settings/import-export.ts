import { esc, layout } from "../layout.ts";
import { settingsNav } from "./nav.ts";

const LABELS: Record<string, string> = {
  follows: "Follows",
  followers: "Followers",
  lists: "Lists",
  blocks: "You block",
  mutes: "You mute",
  domain_blocks: "Domain blocks",
  bookmarks: "Bookmarks",
};

const STYLE = "main{max-width:40rem}table{border-collapse:collapse;width:100%}td,th{padding:.3rem .5rem;text-align:left;border-bottom:1px solid #ddd}fieldset{border:1px solid #ccc;border-radius:4px;margin-top:.75rem}fieldset label{font-weight:400}";

export interface ImportView {
  id: string;
  type: string;
  overwrite: boolean;
  filename: string;
  state: string;
  total: number;
  processed: number;
  imported: number;
  failures: { row: Record<string, unknown>; error: string }[];
}

const TYPE_LABELS: Record<string, string> = {
  following: "Following list",
  blocking: "Blocking list",
  muting: "Muting list",
  domain_blocking: "Domain blocking list",
  bookmarks: "Bookmarks",
  lists: "Lists",
};

function importForm(csrf: string): string {
  const options = Object.entries(TYPE_LABELS).map(([v, l]) => `<option value="${esc(v)}">${esc(l)}</option>`).join("");
  return `<h2>Import</h2>
<form method="post" action="/settings/imports" enctype="multipart/form-data">
<input type="hidden" name="authenticity_token" value="${esc(csrf)}">
<label for="import-type">Import type</label>
<select id="import-type" name="form_import[type]">${options}</select>
<fieldset><legend>Mode</legend>
<label><input type="radio" name="form_import[mode]" value="merge" checked> Merge: keep existing records and add new ones</label>
<label><input type="radio" name="form_import[mode]" value="overwrite"> Overwrite: replace current records with the new ones</label>
</fieldset>
<label for="import-data">CSV file</label>
<input id="import-data" type="file" name="form_import[data]" accept=".csv,text/csv" required>
<div class="actions"><button type="submit">Upload</button></div>
</form>`;
}

function importList(imports: ImportView[]): string {
  if (imports.length === 0) return "";
  const items = imports
    .map((i) => {
      const status = i.state === "finished" ? "Finished" : "In progress";
      const failed = i.failures.length
        ? `<details><summary>${esc(i.failures.length)} row(s) not imported</summary><ul>${i.failures
            .map((f) => `<li><code>${esc(Object.values(f.row).filter((v) => v !== "").join(", "))}</code>: ${esc(f.error)}</li>`)
            .join("")}</ul></details>`
        : "";
      return `<li id="import-${esc(i.id)}"><strong>${esc(TYPE_LABELS[i.type] ?? i.type)}</strong> (${i.overwrite ? "overwrite" : "merge"}) ${esc(i.filename)}:
<span class="progress">${status}, ${esc(i.processed)} of ${esc(i.total)} processed, ${esc(i.imported)} imported</span>
<progress max="${esc(i.total)}" value="${esc(i.processed)}" aria-label="Progress">${esc(i.processed)}/${esc(i.total)}</progress>${failed}</li>`;
    })
    .join("");
  return `<h2>Recent imports</h2><ul class="imports">${items}</ul>`;
}

/** Mastodon's "Data export" page: what each CSV holds and where to download it (plain links: GET, no form). */
export function importExportPage(o: {
  nonce: string;
  handle: string;
  csrf: string;
  totals: Record<string, number>;
  files: Record<string, string>;
  imports: ImportView[];
  error?: string;
}): string {
  const rows = Object.keys(o.totals)
    .map((k) => `<tr><th scope="row">${esc(LABELS[k] ?? k)}</th><td>${esc(o.totals[k])}</td><td><a href="/settings/exports/${esc(k)}.csv" download="${esc(o.files[k])}">Download CSV</a></td></tr>`)
    .join("");
  const body = `${settingsNav("/settings/import-export")}
<h1>Import and export</h1>
<p class="muted">Signed in as ${esc(o.handle)}</p>
<h2>Data export</h2>
<table><thead><tr><th scope="col">Data</th><th scope="col">Count</th><th scope="col">File</th></tr></thead><tbody>${rows}</tbody></table>
${o.error ? `<p class="error" role="alert">${esc(o.error)}</p>` : ""}
${importForm(o.csrf)}
${importList(o.imports)}
<h2>Import your posts</h2>
<p>Bring your posts over from a Mastodon archive: <a href="/settings/post_import">import your posts</a>.</p>`;
  return layout({ title: "Import and export", body, nonce: o.nonce, style: STYLE });
}

import { esc, layout } from "../layout.ts";
import { settingsNav } from "./nav.ts";

export interface ArchiveView {
  id: string;
  createdAt: number;
  size: number | null;
  ready: boolean;
}

/** Mastodon's "Request your archive" section: the request button and the archives with their download links. */
export function archivePage(o: { nonce: string; csrf: string; archives: ArchiveView[]; canRequest: boolean; error?: string; notice?: string }): string {
  const rows = o.archives
    .map((a) => {
      const when = new Date(a.createdAt).toISOString().replace("T", " ").slice(0, 16) + " UTC";
      const link = a.ready ? `<a href="/settings/archives/${esc(a.id)}/download">Download (${esc(Math.ceil((a.size ?? 0) / 1024))} KB)</a>` : "Being prepared…";
      return `<tr><td>${esc(when)}</td><td>${link}</td></tr>`;
    })
    .join("");
  const body = `${settingsNav("/settings/archive")}
<h1>Request your archive</h1>
<p>You can request an archive of your posts and uploaded media once every 7 days. It is in ActivityPub format and kept for a week.</p>
${o.error ? `<p class="error" role="alert">${esc(o.error)}</p>` : ""}${o.notice ? `<p role="status">${esc(o.notice)}</p>` : ""}
<form method="post" action="/settings/archive">
<input type="hidden" name="authenticity_token" value="${esc(o.csrf)}">
<div class="actions"><button type="submit"${o.canRequest ? "" : " disabled"}>Request your archive</button></div>
</form>
${rows ? `<table><thead><tr><th scope="col">Requested</th><th scope="col">Archive</th></tr></thead><tbody>${rows}</tbody></table>` : ""}`;
  return layout({ title: "Request your archive", body, nonce: o.nonce, style: "main{max-width:40rem}td,th{padding:.3rem .5rem;text-align:left}" });
}

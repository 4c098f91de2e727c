import type { ApiAccount } from "../../serializers/account.ts";
import { esc, layout } from "./layout.ts";

// The /directory page: the profile directory for browsers, the same list as GET
// /api/v1/directory. Only plain, escaped fields are shown (names, handles, counts): bios are
// remote HTML and stay in the apps and profile pages.

export interface DirectoryPageInput {
  nonce: string;
  title: string;
  accounts: ApiAccount[];
  order: "active" | "new";
  local: boolean;
  offset: number;
  limit: number;
}

const href = (o: { order: string; local: boolean; offset: number }) =>
  `/directory?${new URLSearchParams({ order: o.order, ...(o.local ? { local: "true" } : {}), ...(o.offset ? { offset: String(o.offset) } : {}) })}`;

function entry(a: ApiAccount): string {
  const name = typeof a.display_name === "string" && a.display_name !== "" ? a.display_name : a.username;
  const posted = typeof a.last_status_at === "string" ? ` · last post ${esc(a.last_status_at)}` : "";
  return `<li><a href="${esc(a.url)}">${esc(name)}</a> <span class="muted">@${esc(a.acct)}</span><br>
<span class="muted">${esc(a.statuses_count)} posts · ${esc(a.followers_count)} followers${posted}</span></li>`;
}

export function directoryPage(o: DirectoryPageInput): string {
  const tab = (label: string, to: { order: "active" | "new"; local: boolean }, current: boolean) =>
    current ? `<strong>${esc(label)}</strong>` : `<a href="${esc(href({ ...to, offset: 0 }))}">${esc(label)}</a>`;
  const nav = `<p>${tab("Recently active", { order: "active", local: o.local }, o.order === "active")} · ${tab("New arrivals", { order: "new", local: o.local }, o.order === "new")}
 | ${tab("Everywhere", { order: o.order, local: false }, !o.local)} · ${tab("This server", { order: o.order, local: true }, o.local)}</p>`;
  const list = o.accounts.length ? `<ul>${o.accounts.map(entry).join("")}</ul>` : `<p class="muted">Nobody here yet.</p>`;
  const pages = [
    o.offset > 0 ? `<a href="${esc(href({ order: o.order, local: o.local, offset: Math.max(0, o.offset - o.limit) }))}">Previous</a>` : "",
    o.accounts.length === o.limit ? `<a href="${esc(href({ order: o.order, local: o.local, offset: o.offset + o.limit }))}">Next</a>` : "",
  ].filter(Boolean);
  const body = `<h1>Directory of ${esc(o.title)}</h1>
<p class="muted">People who chose to be listed.</p>
${nav}${list}${pages.length ? `<p>${pages.join(" · ")}</p>` : ""}`;
  return layout({ title: `Directory · ${o.title}`, body, nonce: o.nonce });
}

// A small Markdown renderer for the admin-written instance texts (extended description, privacy
// policy, terms of service, closed-registrations message), which Mastodon renders with Redcarpet.
// Raw HTML is escaped rather than passed through: the result is shown by clients that may not
// sanitise it. Supported: paragraphs, line breaks, # headings, - / 1. lists, **bold**, *em*,
// `code` and [links](https://...).

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

function inline(text: string): string {
  let out = escapeHtml(text);
  out = out.replace(/`([^`]+)`/g, "<code>$1</code>");
  out = out.replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>");
  out = out.replace(/(^|[^*\w])\*([^*\s][^*]*)\*(?!\w)/g, "$1<em>$2</em>");
  out = out.replace(/(^|[^\w])_([^_\s][^_]*)_(?!\w)/g, "$1<em>$2</em>");
  // Only http(s) links: a javascript: URL must never become an href.
  out = out.replace(/\[([^\]]+)\]\((https?:\/\/[^\s)]+)\)/g, (_m, label: string, href: string) => `<a href="${href}">${label}</a>`);
  return out;
}

const LIST_ITEM = /^\s*(?:[-*+]|(\d+)\.)\s+(.*)$/;

export function renderMarkdown(src: string): string {
  const text = src.replace(/\r\n?/g, "\n").trim();
  if (text === "") return "";
  const html: string[] = [];
  for (const block of text.split(/\n\s*\n/)) {
    const lines = block.split("\n");
    const heading = /^(#{1,6})\s+(.*?)\s*#*$/.exec(block);
    if (lines.length === 1 && heading) {
      const n = heading[1].length;
      html.push(`<h${n}>${inline(heading[2])}</h${n}>`);
    } else if (lines.every((l) => LIST_ITEM.test(l))) {
      const ordered = LIST_ITEM.exec(lines[0])![1] !== undefined;
      const items = lines.map((l) => `<li>${inline(LIST_ITEM.exec(l)![2])}</li>`).join("");
      html.push(ordered ? `<ol>${items}</ol>` : `<ul>${items}</ul>`);
    } else {
      html.push(`<p>${lines.map((l) => inline(l.trim())).join("<br />")}</p>`);
    }
  }
  return html.join("\n");
}

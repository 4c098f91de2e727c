import { Parser } from "htmlparser2";

// Plain text of stored status HTML, as Mastodon's PlainTextFormatter makes it for a remote post
// (FormattingHelper.extract_status_plain_text): a line break after each run of <br> and </p>,
// tags dropped, entities decoded, and one trailing newline removed (Ruby's chomp). Remote
// content is sanitised on the way in (federation/parse/html.ts), so no script or style text
// can be left in it.

const BREAKS = new Set(["br", "p"]);

export function htmlToPlainText(html: string): string {
  if (!html.includes("<") && !html.includes("&")) return html;
  let out = "";
  let inBreakRun = false;
  const breakAfter = (name: string) => {
    if (!BREAKS.has(name) || inBreakRun) return;
    out += "\n";
    inBreakRun = true;
  };
  const parser = new Parser(
    {
      ontext(text) {
        out += text;
        inBreakRun = false;
      },
      // <br> is void: its "close" comes right after its opening; </p> closes a paragraph.
      onclosetag: breakAfter,
    },
    { decodeEntities: true },
  );
  parser.write(html);
  parser.end();
  return out.endsWith("\n") ? out.slice(0, -1) : out;
}

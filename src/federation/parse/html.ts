// Remote HTML → Mastodon's allowed subset (sanitization.md §1), with sanitize-html.
//
// sanitize-html does the parsing, the allow-lists and the escaping. Three of Mastodon's rules
// need more than renaming or dropping a tag, so the transform marks them with sentinel tags or
// a text placeholder that only this module can produce (all real text comes out escaped, and
// incoming tags with the sentinel names are dropped), and the marks are expanded afterwards:
// h1-h6 become <p><strong>, removed block elements become spaces, <math> becomes its TeX.
import sanitizeHtml from "sanitize-html";
import { FederationError } from "../types.ts";

const KEPT_TAGS = ["p", "br", "span", "a", "del", "s", "pre", "blockquote", "code", "b", "strong", "u", "i", "em", "ul", "ol", "li", "ruby", "rt", "rp"];

// Schemes a link may keep (§1.3); any other scheme, and relative links, are unwrapped to text.
const LINK_SCHEMES = new Set(["http", "https", "dat", "dweb", "ipfs", "ipns", "ssb", "gopher", "xmpp", "magnet", "gemini"]);

/** Removed together with their content (§1.3); <math> is handled separately. */
const CONTENT_DROPPING = ["script", "style", "iframe", "svg", "noscript", "noembed", "noframes", "plaintext", "xmp"];

// Block elements that are removed are replaced by spaces so words don't run together
// (the Sanitize gem's whitespace elements, minus the ones we keep or turn into <p><strong>).
const BLOCK_TAGS = new Set(["address", "article", "aside", "dd", "div", "dl", "dt", "footer", "header", "hgroup", "hr", "nav", "section"]);
const HEADINGS = new Set(["h1", "h2", "h3", "h4", "h5", "h6"]);

const HEADING_MARK = "roost-heading";
const SPACE_MARK = "roost-space";
// Tags to unwrap are renamed to an *allowed* sentinel removed afterwards: renaming to a
// disallowed name leaks the rename to the next sibling's closing tag in sanitize-html 2.17.
const DROP_MARK = "roost-drop";
// sanitize-html removes an empty class attribute; Mastodon keeps it (class="").
const EMPTY_CLASS = "roost-empty-class";
const SENTINELS = new Set([HEADING_MARK, SPACE_MARK, DROP_MARK]);

const MICROFORMAT_PREFIX = /^(?:h|p|u|dt|e)-/;
const ALLOWED_CLASSES = new Set(["mention", "hashtag", "ellipsis", "invisible", "quote-inline"]);

/** Keeps microformats and Mastodon's own class tokens; the attribute stays even when empty. */
function filterClasses(value: string): string {
  return value
    .split(/[\t\n\f\r ]+/)
    .filter((c) => MICROFORMAT_PREFIX.test(c) || ALLOWED_CLASSES.has(c))
    .join(" ");
}

/** The scheme of an href (lower-cased), or undefined for a relative link. */
function hrefScheme(href: string | undefined): string | undefined {
  if (href === undefined) return undefined;
  // Like Sanitize's REGEX_PROTOCOL: the scheme is what comes before the first ":" when no "/"
  // or "#" precedes it. Entities are already decoded, so "javascript&#58;" arrives as ":".
  const m = /^\s*([^/#]*?):/.exec(href);
  return m ? m[1].toLowerCase() : undefined;
}

// Bounds on remote HTML: the inbox takes bodies up to 1 MiB, and sanitising costs about a
// microsecond per character and tag even when all goes well (a 1 MB post would hold the event
// loop for a second). Longer HTML is cut (at a tag start) before sanitising; the posts of every
// known server are far shorter (Mastodon's 500 characters are a few kilobytes of HTML).
export const MAX_REMOTE_HTML = 64 * 1024;
// htmlparser2 keeps open elements in an array it shifts and searches, so each tag costs time
// proportional to the nesting depth: 300 000 nested <b> take minutes. Mastodon's parser
// (Nokogiri's HTML5, behind the Sanitize gem) refuses documents nested deeper than 400.
const MAX_DEPTH = 400;

/** The first MAX_REMOTE_HTML characters of `html`, cut before a tag when one starts near the end. */
function bounded(html: string): string {
  if (html.length <= MAX_REMOTE_HTML) return html;
  const tag = html.lastIndexOf("<", MAX_REMOTE_HTML);
  let end = tag > MAX_REMOTE_HTML - 1024 ? tag : MAX_REMOTE_HTML;
  const c = html.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end--; // not half a surrogate pair
  return html.slice(0, end);
}

class TooDeep extends FederationError {
  constructor() {
    super(`HTML nested deeper than ${MAX_DEPTH} elements`, true);
  }
}

// sanitize-html 2.17 option that its type definitions do not list yet.
type SanitizeOptions = sanitizeHtml.IOptions & { allowedEmptyAttributes: string[] };

/** State of one <math> element while its content streams past (FEP-dc88). */
interface MathState {
  depth: number;
  block: boolean;
  /** Element names below <math>, to find <semantics><annotation>. */
  path: string[];
  encoding: string | null;
  tex: string | null;
  plain: string | null;
  placed: boolean;
}

function mathReplacement(m: MathState): string {
  if (m.tex !== null) return m.block ? `$$${m.tex}$$` : `$${m.tex}$`;
  return m.plain ?? "";
}

/**
 * Sanitises remote HTML (status content, bios, profile field values) to Mastodon's strict
 * allow-list: kept elements and attributes, class filtering, forced rel/target on links,
 * unsafe link schemes unwrapped, h1-h6 → <p><strong>, script/style/... dropped with their
 * content, other elements unwrapped (block ones replaced by spaces). HTML longer than
 * MAX_REMOTE_HTML is cut; nesting deeper than MAX_DEPTH throws a permanent FederationError.
 */
export function sanitizeRemoteHtml(html: string): string {
  // Raw parser depth, to know when an unwrapped link or a <math> element ends.
  let depth = 0;
  let unwrapDepth = -1;
  let math: MathState | null = null;
  const maths: string[] = [];

  const transform = (tagName: string, attribs: sanitizeHtml.Attributes): sanitizeHtml.Tag => {
    if (CONTENT_DROPPING.includes(tagName)) return { tagName, attribs };
    if (SENTINELS.has(tagName)) return { tagName: DROP_MARK, attribs: {} };
    if (math) {
      if (depth > math.depth) math.path.push(tagName);
      if (tagName === "annotation" && math.path.length === 2 && math.path[0] === "semantics") math.encoding = attribs.encoding ?? null;
      return { tagName: DROP_MARK, attribs: {} };
    }
    if (tagName === "math") {
      math = { depth, block: attribs.display === "block", path: [], encoding: null, tex: null, plain: null, placed: false };
      return { tagName: DROP_MARK, attribs: {} };
    }
    // Inside an unwrapped link only the text survives.
    if (unwrapDepth >= 0) return { tagName: DROP_MARK, attribs: {} };
    if (tagName === "a" && !LINK_SCHEMES.has(hrefScheme(attribs.href) ?? "")) {
      unwrapDepth = depth;
      return { tagName: DROP_MARK, attribs: {} };
    }
    if (HEADINGS.has(tagName)) return { tagName: HEADING_MARK, attribs: attribs.lang ? { lang: attribs.lang } : {} };
    if (BLOCK_TAGS.has(tagName)) return { tagName: SPACE_MARK, attribs: {} };

    const out: sanitizeHtml.Attributes = { ...attribs };
    if (out.class !== undefined) out.class = filterClasses(out.class) || EMPTY_CLASS;
    if (out.translate !== undefined && out.translate !== "no") delete out.translate;
    if (tagName === "a") {
      // Assigning an existing rel keeps its position; target always goes last (Sanitize's add_attributes).
      delete out.target;
      out.rel = "nofollow noopener";
      out.target = "_blank";
    }
    return { tagName, attribs: out };
  };

  const options: SanitizeOptions = {
    allowedTags: [...KEPT_TAGS, HEADING_MARK, SPACE_MARK, DROP_MARK],
    allowedAttributes: {
      "*": ["lang"],
      a: ["href", "rel", "class", "translate", "target"],
      span: ["class", "translate"],
      p: ["class"],
      ol: ["start", "reversed"],
      li: ["value"],
    },
    allowedEmptyAttributes: ["class"],
    allowedSchemes: [...LINK_SCHEMES],
    allowedSchemesByTag: {},
    allowProtocolRelative: false,
    disallowedTagsMode: "discard",
    nonTextTags: CONTENT_DROPPING,
    parseStyleAttributes: false,
    transformTags: { "*": transform },
    onOpenTag: () => {
      if (++depth > MAX_DEPTH) throw new TooDeep();
    },
    onCloseTag: (name) => {
      depth--;
      if (unwrapDepth >= 0 && depth < unwrapDepth) unwrapDepth = -1;
      if (!math) return;
      if (depth < math.depth) {
        if (math.placed) maths.push(mathReplacement(math));
        math = null;
      } else {
        if (name === "annotation") math.encoding = null;
        math.path.length = Math.min(math.path.length, depth - math.depth);
      }
    },
    textFilter: (text) => {
      if (!math) return text;
      // Text arrives escaped, so the annotation can be emitted as is.
      if (math.encoding === "application/x-tex") math.tex = (math.tex ?? "") + text;
      else if (math.encoding === "text/plain") math.plain = (math.plain ?? "") + text;
      if (math.placed) return "";
      math.placed = true;
      return `<#math${maths.length}>`;
    },
  };
  const result = sanitizeHtml(bounded(html), options);

  return result
    .replaceAll(`<${HEADING_MARK}`, "<p><strong")
    .replaceAll(`</${HEADING_MARK}>`, "</strong></p>")
    .replaceAll(`<${SPACE_MARK}>`, " ")
    .replaceAll(`</${SPACE_MARK}>`, " ")
    .replaceAll(`<${DROP_MARK}>`, "")
    .replaceAll(`</${DROP_MARK}>`, "")
    .replaceAll(` class="${EMPTY_CLASS}"`, ' class=""')
    .replaceAll("<br />", "<br>")
    .replace(/<#math(\d+)>/g, (_m, i: string) => maths[Number(i)] ?? "");
}

/** Plain text of remote HTML (sanitization.md §1.4): newlines after <br> and </p>. Bounded like sanitizeRemoteHtml. */
export function remoteHtmlToText(html: string): string {
  let depth = 0;
  const kept = sanitizeHtml(bounded(html), {
    allowedTags: ["p", "br"],
    allowedAttributes: {},
    disallowedTagsMode: "discard",
    nonTextTags: [...CONTENT_DROPPING, "math"],
    parseStyleAttributes: false,
    onOpenTag: () => {
      if (++depth > MAX_DEPTH) throw new TooDeep();
    },
    onCloseTag: () => {
      depth--;
    },
  });
  // Only <p>, </p>, <br /> and escaped text are left: a run of line-ending tags is one newline.
  const text = kept
    .replace(/(?:<br \/>|<\/p>)+/g, "\n")
    .replaceAll("<p>", "")
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&amp;", "&");
  return text.endsWith("\n") ? text.slice(0, -1) : text;
}

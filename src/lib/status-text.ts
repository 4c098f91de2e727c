// Local status text → HTML (protocols/sanitization.md §2): links come from text-html.ts, this
// file adds mentions and hashtags, Mastodon's mention canonicalisation and the length rule.
import { isLanguageCode } from "./iso-639-1.ts";
import { countGraphemes } from "./graphemes.ts";
import { countableText, escapeHtml, extractMentions, formatPlainText, MAX_UNITS_PER_CHAR, type TextEntity } from "./text-html.ts";
import { extractHashtags } from "./tags.ts";
import { tagUrl } from "./urls.ts";

/** A mentioned handle; `domain` is null for local accounts (also when written with our domain). */
export interface MentionHandle {
  username: string;
  domain: string | null;
}

/** What mentions need of an account (storage's Account has it; lib sits below storage). */
export interface MentionAccount {
  id: string;
  username: string;
  domain: string | null;
  uri: string;
  url: string | null;
}

/** Resolves a handle to a known account, or undefined (the mention then stays plain text). */
export type MentionResolver<A extends MentionAccount = MentionAccount> = (handle: MentionHandle) => A | undefined;

const handleKey = (h: MentionHandle) => `${h.username.toLowerCase()}@${h.domain?.toLowerCase() ?? ""}`;

function localize(domain: string | null, localDomain: string): string | null {
  return domain === null || domain.toLowerCase() === localDomain.toLowerCase() ? null : domain.toLowerCase();
}

/** The distinct handles a text mentions, so a caller (federation) can resolve them first. */
export function mentionHandles(text: string, localDomain: string): MentionHandle[] {
  const out = new Map<string, MentionHandle>();
  for (const m of extractMentions(text)) {
    const h = { username: m.username, domain: localize(m.domain, localDomain) };
    if (!out.has(handleKey(h))) out.set(handleKey(h), h);
  }
  return [...out.values()];
}

/**
 * Mastodon's ProcessMentionsService rewrite: every resolved mention becomes the account's
 * canonical handle (`@alice` for local accounts, `@bob@remote.example` for remote ones); the
 * accounts are returned once each, in order of first appearance.
 */
export function canonicalizeMentions<A extends MentionAccount>(
  text: string,
  localDomain: string,
  resolve: MentionResolver<A>,
): { text: string; accounts: A[] } {
  const accounts = new Map<string, A>();
  let out = "";
  let pos = 0;
  for (const m of extractMentions(text)) {
    const account = resolve({ username: m.username, domain: localize(m.domain, localDomain) });
    if (!account) continue;
    out += text.slice(pos, m.start) + "@" + (account.domain ? `${account.username}@${account.domain}` : account.username);
    pos = m.end;
    if (!accounts.has(account.id)) accounts.set(account.id, account);
  }
  return { text: out + text.slice(pos), accounts: [...accounts.values()] };
}

export interface StatusFormatOptions {
  baseUrl: string;
  /** The instance's domain: `@alice@<domain>` is the local alice. */
  localDomain: string;
  /** The post's mentions; handles of other accounts are left as plain text. */
  mentions: MentionAccount[];
}

function mentionHtml(account: MentionAccount, showDomain: boolean): string {
  const name = showDomain && account.domain ? `${account.username}@${account.domain}` : account.username;
  const url = account.url ?? account.uri;
  return (
    `<span class="h-card" translate="no"><a href="${escapeHtml(url)}" class="u-url mention">` +
    `@<span>${escapeHtml(name)}</span></a></span>`
  );
}

function mentionExtractor(o: StatusFormatOptions) {
  return (text: string): TextEntity[] => {
    const out: TextEntity[] = [];
    for (const m of extractMentions(text)) {
      const domain = localize(m.domain, o.localDomain);
      const user = m.username.toLowerCase();
      const account = o.mentions.find((a) => a.username.toLowerCase() === user && (a.domain?.toLowerCase() ?? null) === domain);
      if (!account) continue;
      // The user@domain form only when two mentioned accounts share the username.
      const clash = o.mentions.some((a) => a !== account && a.username.toLowerCase() === user);
      out.push({ start: m.start, end: m.end, html: mentionHtml(account, clash) });
    }
    return out;
  };
}

/** Hashtags as links to the tag's page (posts, and bios and profile fields as Mastodon renders them). */
export function hashtagExtractor(baseUrl: string) {
  return (text: string): TextEntity[] =>
    extractHashtags(text).map((h) => ({
      start: h.start,
      end: h.end,
      html: `<a href="${escapeHtml(tagUrl(baseUrl, h.name))}" class="mention hashtag" rel="tag">#<span>${escapeHtml(h.name)}</span></a>`,
    }));
}

/** The `content` HTML of a local post: paragraphs, `<br />`, links, mentions, hashtags. */
export function formatStatusText(text: string, o: StatusFormatOptions): string {
  return formatPlainText(text, { extractors: [mentionExtractor(o), hashtagExtractor(o.baseUrl)] });
}

/**
 * Mastodon's StatusLengthValidator: grapheme clusters of the content warning (as typed)
 * followed by the text, in which every URL counts 23 and `@user@domain` counts as `@user`.
 * With `stopAfter`, counting stops once the count exceeds it.
 */
export function statusLength(text: string, spoilerText: string, stopAfter = Infinity): number {
  return countGraphemes(spoilerText + countableText(text), stopAfter);
}

/** True when the post counts more than `max`; linear, and instant for texts far too long. */
export function exceedsStatusLimit(text: string, spoilerText: string, max: number): boolean {
  if (text.length + spoilerText.length > max * MAX_UNITS_PER_CHAR) return true;
  return statusLength(text, spoilerText, max) > max;
}

/**
 * A post's language: an ISO 639-1 code (a regional suffix such as `en-US` or `pt_BR` is
 * dropped, as Mastodon's valid_locale_or_nil does), otherwise null.
 */
export function normalizeLanguage(v: string | null | undefined): string | null {
  if (!v) return null;
  const s = v.trim();
  if (isLanguageCode(s)) return s;
  const code = s.split(/[-_]/)[0].toLowerCase();
  return isLanguageCode(code) ? code : null;
}

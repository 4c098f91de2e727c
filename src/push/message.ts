// The push message (push.md §3; Mastodon's Web::NotificationSerializer): a small JSON document
// that tells the app which notification to fetch with which token, plus a title and a body
// for apps that show it as it comes.
import type { App } from "../app.ts";
import type { Id } from "../lib/ids.ts";
import { remoteHtmlToText } from "../federation/parse/html.ts";
import { toApiAccount } from "../serializers/account.ts";
import type { Account } from "../storage/accounts.ts";
import type { Notification } from "../storage/notifications.ts";
import type { Status } from "../storage/statuses.ts";

export interface PushMessage {
  access_token: string;
  preferred_locale: string;
  /** Mastodon sends a number; ours are 64-bit snowflakes, beyond a JSON number's exact range. */
  notification_id: Id;
  notification_type: string;
  /** Absolute URL of the sender's static avatar. */
  icon: string;
  title: string;
  body: string;
}

const DEFAULT_LOCALE = "en";
const BODY_CHARS = 140;

// Mastodon's en.yml `notification_mailer.<type>.subject`, which its push titles reuse.
const TITLES: Record<string, (name: string) => string> = {
  mention: (name) => `You were mentioned by ${name}`,
  status: (name) => `${name} just posted`,
  reblog: (name) => `${name} boosted your post`,
  follow: (name) => `${name} is now following you`,
  follow_request: (name) => `Pending follower: ${name}`,
  favourite: (name) => `${name} favorited your post`,
  poll: (name) => `A poll by ${name} has ended`,
  update: (name) => `${name} edited a post`,
  "admin.sign_up": (name) => `${name} signed up`,
  "admin.report": (name) => `${name} submitted a report`,
};

/** Rails' truncate(length: 140): longer text is cut so that it ends in "..." at 140 characters. */
function truncate(text: string): string {
  const chars = Array.from(text);
  return chars.length <= BODY_CHARS ? text : chars.slice(0, BODY_CHARS - 3).join("") + "...";
}

/**
 * The status's content warning if it has one, else its text; without a status, the sender's
 * bio. As Mastodon, tags are stripped from whichever it is (a local user's own text too) and
 * entities decoded: the body is plain text.
 */
function bodyText(sender: Account, status: Status | undefined): string {
  if (status) {
    // A local status keeps its source text; a remote one only its HTML.
    return remoteHtmlToText(status.spoilerText || (status.local ? status.text : status.content));
  }
  return remoteHtmlToText(sender.domain === null ? sender.noteSource : sender.note);
}

export function buildPushMessage(
  app: App,
  o: { notification: Notification; sender: Account; status: Status | undefined; locale: string | null; accessToken: string },
): PushMessage {
  const sender = toApiAccount(app, o.sender);
  // Rails' `display_name.presence || username`.
  const displayName = typeof sender.display_name === "string" ? sender.display_name : "";
  const name = displayName.trim() ? displayName : o.sender.username;
  const title = TITLES[o.notification.type]?.(name) ?? name;
  return {
    access_token: o.accessToken,
    preferred_locale: o.locale || DEFAULT_LOCALE,
    notification_id: o.notification.id,
    notification_type: o.notification.type,
    icon: String(sender.avatar_static),
    title,
    body: truncate(bodyText(o.sender, o.status)),
  };
}

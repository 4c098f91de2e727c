import type { App } from "../app.ts";
import type { WebfingerTarget } from "../services/webfinger.ts";

export interface Jrd {
  subject: string;
  aliases: string[];
  links: { rel: string; type?: string; href?: string; template?: string }[];
}

/** The instance actor's id (its document comes with federation; keys are in instance_keys). */
export const instanceActorUrl = (app: App) => `${app.baseUrl}/actor`;

/** The JRD Mastodon serves: profile page, ActivityPub `self` and the remote-follow template. */
export function toJrd(app: App, target: WebfingerTarget): Jrd {
  const domain = app.config.domain;
  if (target.kind === "instance") {
    const actor = instanceActorUrl(app);
    return {
      subject: `acct:${domain}@${domain}`,
      aliases: [actor],
      links: [
        { rel: "http://webfinger.net/rel/profile-page", type: "text/html", href: `${app.baseUrl}/about/more?instance_actor=true` },
        { rel: "self", type: "application/activity+json", href: actor },
      ],
    };
  }
  const a = target.account;
  const profile = a.url ?? `${app.baseUrl}/@${a.username}`;
  return {
    subject: `acct:${a.username}@${domain}`,
    aliases: [profile, a.uri],
    links: [
      { rel: "http://webfinger.net/rel/profile-page", type: "text/html", href: profile },
      { rel: "self", type: "application/activity+json", href: a.uri },
      { rel: "http://ostatus.org/schema/1.0/subscribe", template: `${app.baseUrl}/authorize_interaction?uri={uri}` },
    ],
  };
}

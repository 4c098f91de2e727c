// https://docs.joinmastodon.org/methods/preferences/
import type { App } from "../../../../app.ts";
import type { Router } from "../../../../http/router.ts";
import type { User } from "../../../../services/domain-types.ts";
import { requireUser } from "../../../auth.ts";

const EXPAND_MEDIA = new Set(["default", "show_all", "hide_all"]);
const QUOTE_POLICIES = new Set(["public", "followers", "nobody"]);

/** The Preferences entity, from the user's columns and settings JSON with Mastodon's defaults. */
export function toApiPreferences(user: User): Record<string, unknown> {
  const s = user.settings;
  const expandMedia = typeof s["reading:expand:media"] === "string" && EXPAND_MEDIA.has(s["reading:expand:media"] as string)
    ? s["reading:expand:media"]
    : "default";
  const quotePolicy = typeof s["posting:default:quote_policy"] === "string" && QUOTE_POLICIES.has(s["posting:default:quote_policy"] as string)
    ? s["posting:default:quote_policy"]
    : "public";
  return {
    "posting:default:visibility": user.defaultPrivacy,
    "posting:default:sensitive": user.defaultSensitive,
    // Falls back to the UI locale's language, as Mastodon's serializer does.
    "posting:default:language": user.defaultLanguage ?? user.locale?.slice(0, 2) ?? null,
    "posting:default:quote_policy": quotePolicy,
    "reading:expand:media": expandMedia,
    "reading:expand:spoilers": s["reading:expand:spoilers"] === true,
    "reading:autoplay:gifs": s["reading:autoplay:gifs"] === true,
  };
}

export function registerPreferencesRoutes(app: App, r: Router): void {
  r.get("/api/v1/preferences", (event) => {
    const { user } = requireUser(app, event, "read:accounts");
    return toApiPreferences(user);
  });
}

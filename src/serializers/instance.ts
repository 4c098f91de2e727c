import type { App } from "../app.ts";
import { IMAGE_CONTENT_TYPES } from "../media/image-types.ts";
import { ffmpegTools } from "../media/ffmpeg.ts";
import { uploadContentTypes } from "../media/upload-types.ts";
import type { Capabilities } from "../services/capabilities.ts";
import type { InstanceInfo } from "../services/instance.ts";
import { SOURCE_URL } from "../version.ts";
import { toApiAccount } from "./account.ts";
import { toApiRule } from "./rule.ts";
import { inviteMinRoleId, invitesEnabled, limitedFederation, registrationsMode } from "../storage/instance-settings.ts";

// https://docs.joinmastodon.org/entities/Instance/ and V1_Instance. Clients read their limits
// here at start-up and believe every capability they see, so each one is advertised only while it
// is served (services/capabilities.ts). What stands for "not served" is the value the clients that
// matter handle best: a 4.2-shaped document (no api_versions, no vapid), null URLs (as Pixelfed
// sends) and zero limits; objects and limit keys stay, because Elk and Ice Cubes fail on a missing
// `polls` or `media_attachments`.


// Mastodon's fixed limits that roost does not make configurable.
export const LIMITS = {
  maxFeaturedTags: 10,
  maxPinnedStatuses: 5,
  maxDisplayNameLength: 30,
  maxNoteLength: 500,
  profileFieldLimit: 255,
  charactersReservedPerUrl: 23,
  descriptionLimit: 1500,
  imageMatrixLimit: 33_177_600,
  videoFrameRateLimit: 120,
  videoMatrixLimit: 8_294_400,
};

/** Android-style icon sizes Mastodon lists in `icon`. */
export const ICON_SIZES = [36, 48, 72, 96, 144, 192, 256, 384, 512];
export const instanceThumbnailUrl = (baseUrl: string) => `${baseUrl}/instance/thumbnail.png`;
export const instanceIconUrl = (baseUrl: string, size: number) => `${baseUrl}/instance/icons/${size}.png`;

/**
 * Where clients open the streaming API (same host; ws:// only for plain-http test set-ups), or
 * null while it is not served: masto.js (Elk, Phanpy) would retry an unserved URL forever and
 * Phanpy would never fall back to polling for notifications; without one both simply poll.
 */
export const streamingUrl = (app: App, caps: Capabilities) =>
  caps.streaming ? `${app.config.protocol === "https" ? "wss" : "ws"}://${app.config.domain}` : null;

const LANGUAGES = ["en"];

function statusesConfig(app: App, caps: Capabilities) {
  return {
    max_characters: app.config.maxStatusChars,
    // 0 without the media API: Phanpy, Tusky and Mastodon for iOS then disable their media button.
    max_media_attachments: caps.mediaUpload ? app.config.maxMediaAttachments : 0,
    characters_reserved_per_url: LIMITS.charactersReservedPerUrl,
  };
}

function mediaConfig(app: App, caps: Capabilities) {
  return {
    // Exactly what the upload API accepts (media/upload-types.ts). Without the media API only
    // avatars and headers can be uploaded; Elk's profile image picker offers the types listed here.
    supported_mime_types: caps.mediaUpload ? uploadContentTypes({ ffmpeg: ffmpegTools(app) !== undefined }) : Object.values(IMAGE_CONTENT_TYPES),
    description_limit: LIMITS.descriptionLimit,
    image_size_limit: app.config.maxImageBytes,
    image_matrix_limit: LIMITS.imageMatrixLimit,
    video_size_limit: app.config.maxMediaBytes,
    video_frame_rate_limit: LIMITS.videoFrameRateLimit,
    video_matrix_limit: LIMITS.videoMatrixLimit,
  };
}

function pollsConfig(app: App, caps: Capabilities) {
  return {
    // No polls: Phanpy hides its poll button below 2 options. The other limits stay, Tusky builds
    // its duration menu from min..max_expiration and fails on an empty one.
    max_options: caps.polls ? app.config.maxPollOptions : 0,
    max_characters_per_option: app.config.maxPollOptionChars,
    min_expiration: app.config.minPollExpiration,
    max_expiration: app.config.maxPollExpiration,
  };
}

/** GET /api/v2/instance. */
export function toApiInstanceV2(app: App, info: InstanceInfo) {
  const c = app.config;
  const caps = info.capabilities;
  const apiVersion = info.apiVersion;
  const mode = registrationsMode(app);
  const open = mode !== "closed";
  // Anonymous callers may read the public feeds unless the instance requires a login.
  const feedAccess = c.publicApi ? "public" : "authenticated";
  return {
    domain: c.domain,
    title: c.title,
    version: info.version,
    source_url: SOURCE_URL,
    description: c.description,
    usage: { users: { active_month: info.activeMonth } },
    thumbnail: { url: instanceThumbnailUrl(app.baseUrl) },
    icon: ICON_SIZES.map((size) => ({ src: instanceIconUrl(app.baseUrl, size), size: `${size}x${size}` })),
    languages: LANGUAGES,
    configuration: {
      urls: {
        streaming: streamingUrl(app, caps),
        status: null,
        about: `${app.baseUrl}/about`,
        privacy_policy: `${app.baseUrl}/privacy-policy`,
        terms_of_service: info.hasTermsOfService ? `${app.baseUrl}/terms-of-service` : null,
      },
      // Absent as in 4.2 while Web Push is not served (Mastodon for Android then skips it).
      ...(caps.webPush ? { vapid: { public_key: c.vapidPublicKey } } : {}),
      accounts: {
        // 0 while featured tags are not served, as Pixelfed sends.
        max_featured_tags: caps.featuredTags ? LIMITS.maxFeaturedTags : 0,
        max_pinned_statuses: LIMITS.maxPinnedStatuses,
        max_display_name_length: LIMITS.maxDisplayNameLength,
        max_note_length: LIMITS.maxNoteLength,
        max_profile_fields: c.maxProfileFields,
        profile_field_name_limit: LIMITS.profileFieldLimit,
        profile_field_value_limit: LIMITS.profileFieldLimit,
      },
      statuses: statusesConfig(app, caps),
      media_attachments: mediaConfig(app, caps),
      polls: pollsConfig(app, caps),
      translation: { enabled: caps.translation },
      timelines_access: {
        live_feeds: { local: feedAccess, remote: feedAccess },
        hashtag_feeds: { local: feedAccess, remote: feedAccess },
        trending_link_feeds: caps.linkTimeline ? { local: feedAccess, remote: feedAccess } : { local: "disabled", remote: "disabled" },
      },
      limited_federation: limitedFederation(app),
    },
    registrations: {
      enabled: open,
      approval_required: mode === "approval",
      reason_required: false,
      message: open ? null : info.closedRegistrationsMessage,
      min_age: null,
      url: null,
    },
    ...(apiVersion === undefined ? {} : { api_versions: { mastodon: apiVersion } }),
    contact: {
      email: c.contactEmail,
      account: info.contactAccount ? toApiAccount(app, info.contactAccount) : null,
    },
    rules: info.rules.map(toApiRule),
  };
}

/** GET /api/v1/instance (deprecated, still read by many clients for version sniffing). */
export function toApiInstanceV1(app: App, info: InstanceInfo) {
  const c = app.config;
  const caps = info.capabilities;
  return {
    uri: c.domain,
    title: c.title,
    short_description: c.description,
    description: c.description,
    email: c.contactEmail,
    version: info.version,
    urls: { streaming_api: streamingUrl(app, caps) },
    stats: {
      user_count: info.stats?.userCount ?? 0,
      status_count: info.stats?.statusCount ?? 0,
      domain_count: info.stats?.domainCount ?? 0,
    },
    thumbnail: instanceThumbnailUrl(app.baseUrl),
    languages: LANGUAGES,
    registrations: registrationsMode(app) !== "closed",
    approval_required: registrationsMode(app) === "approval",
    // Mastodon: Setting.min_invite_role == 'user' (everyone may invite); roost: invites on and
    // open to the everyone role.
    invites_enabled: invitesEnabled(app) && inviteMinRoleId(app) === null,
    configuration: {
      accounts: { max_featured_tags: caps.featuredTags ? LIMITS.maxFeaturedTags : 0 },
      statuses: statusesConfig(app, caps),
      media_attachments: mediaConfig(app, caps),
      polls: pollsConfig(app, caps),
    },
    contact_account: info.contactAccount ? toApiAccount(app, info.contactAccount) : null,
    rules: info.rules.map(toApiRule),
  };
}

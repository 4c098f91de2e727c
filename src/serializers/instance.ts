import type { App } from "../app.ts";
import type { InstanceInfo } from "../services/instance.ts";
import { INSTANCE_VERSION, MASTODON_API_VERSION, SOURCE_URL } from "../version.ts";
import { toApiAccount } from "./account.ts";
import { toApiRule } from "./rule.ts";

// https://docs.joinmastodon.org/entities/Instance/ and V1_Instance. Clients read their limits
// here at start-up (Ivory refuses to start when a field is missing), so every key is always sent.

/** Mastodon's accepted upload types (MediaAttachment.supported_mime_types). */
export const SUPPORTED_MIME_TYPES = [
  "image/jpeg",
  "image/png",
  "image/gif",
  "image/heic",
  "image/heif",
  "image/webp",
  "image/avif",
  "video/webm",
  "video/mp4",
  "video/quicktime",
  "video/ogg",
  "audio/wave",
  "audio/wav",
  "audio/x-wav",
  "audio/x-pn-wave",
  "audio/vnd.wave",
  "audio/ogg",
  "audio/vorbis",
  "audio/mpeg",
  "audio/mp3",
  "audio/webm",
  "audio/flac",
  "audio/aac",
  "audio/m4a",
  "audio/x-m4a",
  "audio/mp4",
  "audio/3gpp",
  "video/x-ms-asf",
];

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
  pollMaxCharactersPerOption: 50,
  pollMinExpiration: 300,
  pollMaxExpiration: 2_629_746,
};

/** Android-style icon sizes Mastodon lists in `icon`. */
export const ICON_SIZES = [36, 48, 72, 96, 144, 192, 256, 384, 512];
export const instanceThumbnailUrl = (baseUrl: string) => `${baseUrl}/instance/thumbnail.png`;
export const instanceIconUrl = (baseUrl: string, size: number) => `${baseUrl}/instance/icons/${size}.png`;

/** Where clients open the streaming API (same host; ws:// only for plain-http test set-ups). */
export const streamingUrl = (app: App) => `${app.config.protocol === "https" ? "wss" : "ws"}://${app.config.domain}`;

const LANGUAGES = ["en"];

function statusesConfig(app: App) {
  return {
    max_characters: app.config.maxStatusChars,
    max_media_attachments: app.config.maxMediaAttachments,
    characters_reserved_per_url: LIMITS.charactersReservedPerUrl,
  };
}

function mediaConfig(app: App) {
  return {
    supported_mime_types: SUPPORTED_MIME_TYPES,
    description_limit: LIMITS.descriptionLimit,
    image_size_limit: app.config.maxImageBytes,
    image_matrix_limit: LIMITS.imageMatrixLimit,
    video_size_limit: app.config.maxMediaBytes,
    video_frame_rate_limit: LIMITS.videoFrameRateLimit,
    video_matrix_limit: LIMITS.videoMatrixLimit,
  };
}

function pollsConfig(app: App) {
  return {
    max_options: app.config.maxPollOptions,
    max_characters_per_option: LIMITS.pollMaxCharactersPerOption,
    min_expiration: LIMITS.pollMinExpiration,
    max_expiration: LIMITS.pollMaxExpiration,
  };
}

/** GET /api/v2/instance. */
export function toApiInstanceV2(app: App, info: InstanceInfo) {
  const c = app.config;
  const open = c.registrations !== "closed";
  // Anonymous callers may read the public feeds unless the instance requires a login.
  const feedAccess = c.publicApi ? "public" : "authenticated";
  return {
    domain: c.domain,
    title: c.title,
    version: INSTANCE_VERSION,
    source_url: SOURCE_URL,
    description: c.description,
    usage: { users: { active_month: info.activeMonth } },
    thumbnail: { url: instanceThumbnailUrl(app.baseUrl) },
    icon: ICON_SIZES.map((size) => ({ src: instanceIconUrl(app.baseUrl, size), size: `${size}x${size}` })),
    languages: LANGUAGES,
    configuration: {
      urls: {
        streaming: streamingUrl(app),
        status: null,
        about: `${app.baseUrl}/about`,
        privacy_policy: `${app.baseUrl}/privacy-policy`,
        terms_of_service: info.hasTermsOfService ? `${app.baseUrl}/terms-of-service` : null,
      },
      vapid: { public_key: c.vapidPublicKey },
      accounts: {
        max_featured_tags: LIMITS.maxFeaturedTags,
        max_pinned_statuses: LIMITS.maxPinnedStatuses,
        max_display_name_length: LIMITS.maxDisplayNameLength,
        max_note_length: LIMITS.maxNoteLength,
        max_profile_fields: c.maxProfileFields,
        profile_field_name_limit: LIMITS.profileFieldLimit,
        profile_field_value_limit: LIMITS.profileFieldLimit,
      },
      statuses: statusesConfig(app),
      media_attachments: mediaConfig(app),
      polls: pollsConfig(app),
      translation: { enabled: false },
      timelines_access: {
        live_feeds: { local: feedAccess, remote: feedAccess },
        hashtag_feeds: { local: feedAccess, remote: feedAccess },
        trending_link_feeds: { local: feedAccess, remote: feedAccess },
      },
      limited_federation: false,
    },
    registrations: {
      enabled: open,
      approval_required: c.registrations === "approval",
      reason_required: false,
      message: open ? null : info.closedRegistrationsMessage,
      min_age: null,
      url: null,
    },
    api_versions: { mastodon: MASTODON_API_VERSION },
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
  return {
    uri: c.domain,
    title: c.title,
    short_description: c.description,
    description: c.description,
    email: c.contactEmail,
    version: INSTANCE_VERSION,
    urls: { streaming_api: streamingUrl(app) },
    stats: {
      user_count: info.stats?.userCount ?? 0,
      status_count: info.stats?.statusCount ?? 0,
      domain_count: info.stats?.domainCount ?? 0,
    },
    thumbnail: instanceThumbnailUrl(app.baseUrl),
    languages: LANGUAGES,
    registrations: c.registrations !== "closed",
    approval_required: c.registrations === "approval",
    // No invite API in roost (yet): clients should not offer to create invites.
    invites_enabled: false,
    configuration: {
      accounts: { max_featured_tags: LIMITS.maxFeaturedTags },
      statuses: statusesConfig(app),
      media_attachments: mediaConfig(app),
      polls: pollsConfig(app),
    },
    contact_account: info.contactAccount ? toApiAccount(app, info.contactAccount) : null,
    rules: info.rules.map(toApiRule),
  };
}

import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer } from "../helpers/server.ts";
import { createRule } from "../../src/services/rules.ts";
import { insertAccount } from "../../src/storage/accounts.ts";

const PUBLIC_5_MIN = "public, max-age=300, stale-while-revalidate=30, stale-if-error=86400";

test("v2 instance: every field, limits from the config, admin contact, rules, public caching", async (t) => {
  const s = await startTestServer({
    config: {
      maxStatusChars: 1234,
      maxProfileFields: 7,
      maxImageBytes: 2_000_000,
      maxMediaBytes: 9_000_000,
      maxMediaAttachments: 6,
      maxPollOptions: 5,
      maxPollOptionChars: 80,
      minPollExpiration: 600,
      contactEmail: "admin@roost.test",
      description: "Birds of a feather",
    },
  });
  t.after(() => s.close());
  const alice = await s.user("alice");
  const admin = await s.user("boss", { role: "admin" });
  const rule2 = createRule(s.app, { text: "Be kind", position: 2 });
  const rule1 = createRule(s.app, { text: "No spam", hint: "Ads count", position: 1 });

  // Any authenticated request marks the user active today (usage.users.active_month).
  await s.api(alice, "GET", "/api/v1/apps/verify_credentials");
  // A request with a token is still cached publicly: the answer is the same for everyone.
  const res = await s.req(alice, "GET", "/api/v2/instance");
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("cache-control"), PUBLIC_5_MIN);
  assert.equal(res.headers.get("vary"), null);
  const i = res.body;
  const c = s.app.config;
  assert.equal(i.domain, c.domain);
  assert.equal(i.title, "Roost Test");
  // What is not served yet is not advertised (services/capabilities.ts; the documents with every
  // capability on are checked in instance-capabilities.test.ts): a 4.3 release (grouped and
  // filtered notifications, the link timeline), and API level 2 for grouped notifications.
  assert.equal(i.version, "4.3.0 (compatible; roost 0.1.0)");
  assert.deepEqual(i.api_versions, { mastodon: 2 });
  assert.match(i.source_url, /^https:\/\//);
  assert.equal(i.description, "Birds of a feather");
  assert.equal(i.usage.users.active_month, 1); // alice's request above; instance reads ignore tokens
  assert.deepEqual(i.thumbnail, { url: `${s.app.baseUrl}/instance/thumbnail.png` });
  assert.equal(i.icon.length, 9);
  assert.deepEqual(i.icon[0], { src: `${s.app.baseUrl}/instance/icons/36.png`, size: "36x36" });
  assert.deepEqual(i.languages, ["en"]);

  const conf = i.configuration;
  // The streaming API lives on the same host (ws:// for this plain-http test server).
  assert.equal(conf.urls.streaming, `ws://${s.app.config.domain}`);
  assert.equal(conf.urls.status, null);
  assert.equal(conf.urls.terms_of_service, null);
  // Web Push is served: Mastodon for Android subscribes as soon as it sees the key.
  assert.deepEqual(conf.vapid, { public_key: s.app.config.vapidPublicKey });
  assert.deepEqual(conf.accounts, {
    max_featured_tags: 10,
    max_pinned_statuses: 5,
    max_display_name_length: 30,
    max_note_length: 500,
    max_profile_fields: 7,
    profile_field_name_limit: 255,
    profile_field_value_limit: 255,
  });
  assert.deepEqual(conf.statuses, { max_characters: 1234, max_media_attachments: 6, characters_reserved_per_url: 23 });
  // Exactly what the media API accepts: images, and video and audio (ffmpeg from the npm packages).
  assert.deepEqual(conf.media_attachments.supported_mime_types, ["image/jpeg", "image/png", "image/gif", "image/webp", "image/avif", "image/heic", "image/heif", "video/mp4", "video/quicktime", "video/webm", "audio/webm", "video/3gpp", "audio/3gpp", "audio/mp4", "audio/m4a", "audio/x-m4a", "audio/mpeg", "audio/mp3", "audio/ogg", "audio/vorbis", "video/ogg", "audio/wav", "audio/wave", "audio/x-wav", "audio/x-pn-wave", "audio/vnd.wave", "audio/flac", "audio/aac"]);
  assert.equal(conf.media_attachments.image_size_limit, 2_000_000);
  assert.equal(conf.media_attachments.video_size_limit, 9_000_000);
  assert.equal(conf.media_attachments.image_matrix_limit, 33_177_600);
  assert.equal(conf.media_attachments.video_matrix_limit, 8_294_400);
  assert.equal(conf.media_attachments.video_frame_rate_limit, 120);
  assert.equal(conf.media_attachments.description_limit, 1500);
  // Polls are served: every limit comes from the config (the defaults are Mastodon's).
  assert.deepEqual(conf.polls, { max_options: 5, max_characters_per_option: 80, min_expiration: 600, max_expiration: 2629746 });
  assert.deepEqual(conf.translation, { enabled: false });
  assert.deepEqual(conf.timelines_access.live_feeds, { local: "public", remote: "public" });
  // GET /api/v1/timelines/link is served, public like the other public timelines.
  assert.deepEqual(conf.timelines_access.trending_link_feeds, { local: "public", remote: "public" });
  assert.equal(conf.limited_federation, false);

  assert.deepEqual(i.registrations, {
    enabled: true,
    approval_required: false,
    reason_required: false,
    message: null,
    min_age: null,
    url: null,
  });
  assert.equal(i.contact.email, "admin@roost.test");
  assert.equal(i.contact.account.id, admin.id);
  assert.equal(i.contact.account.username, "boss");
  assert.deepEqual(i.rules, [
    { id: rule1.id, text: "No spam", hint: "Ads count", translations: {} },
    { id: rule2.id, text: "Be kind", hint: "", translations: {} },
  ]);
});

test("v1 instance: legacy shape, stats, Deprecation header; registrations and no admin", async (t) => {
  const s = await startTestServer({ config: { registrations: "approval", maxStatusChars: 777 } });
  t.after(() => s.close());
  await s.user("alice");
  await s.user("pending", { confirmed: false });
  const now = s.app.now();
  insertAccount(s.app.db, {
    id: s.app.ids.next(),
    username: "carol",
    domain: "remote.example",
    uri: "https://remote.example/users/carol",
    createdAt: now,
    updatedAt: now,
  });

  const res = await s.req(null, "GET", "/api/v1/instance");
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("deprecation"), "@1668384000");
  assert.equal(res.headers.get("cache-control"), PUBLIC_5_MIN);
  const i = res.body;
  assert.equal(i.uri, s.app.config.domain);
  assert.equal(i.version, "4.3.0 (compatible; roost 0.1.0)");
  assert.equal(i.short_description, s.app.config.description);
  assert.equal(i.email, "");
  assert.deepEqual(i.urls, { streaming_api: `ws://${s.app.config.domain}` });
  // The unconfirmed user does not count.
  assert.deepEqual(i.stats, { user_count: 1, status_count: 0, domain_count: 1 });
  assert.equal(i.thumbnail, `${s.app.baseUrl}/instance/thumbnail.png`);
  assert.equal(i.registrations, true);
  assert.equal(i.approval_required, true);
  // Mastodon: min_invite_role is the everyone role (roost's default settings: invites on).
  assert.equal(i.invites_enabled, true);
  assert.deepEqual(i.configuration.accounts, { max_featured_tags: 10 });
  assert.equal(i.configuration.statuses.max_characters, 777);
  assert.equal(i.configuration.statuses.max_media_attachments, 4);
  assert.deepEqual(i.configuration.polls, { max_options: 4, max_characters_per_option: 50, min_expiration: 300, max_expiration: 2629746 });
  assert.equal(i.contact_account, null);
  assert.deepEqual(i.rules, []);

  // Tokens are ignored here: even a bogus one gets the public answer.
  const bogus = await s.req("not-a-real-token", "GET", "/api/v2/instance");
  assert.equal(bogus.status, 200);
  assert.equal(bogus.headers.get("cache-control"), PUBLIC_5_MIN);
  const v2 = bogus.body;
  assert.equal(v2.registrations.enabled, true);
  assert.equal(v2.registrations.approval_required, true);
  assert.equal(v2.contact.account, null);
});

test("closed registrations report enabled false; thumbnail and icons are served as PNG", async (t) => {
  const s = await startTestServer({ config: { registrations: "closed", publicApi: false } });
  t.after(() => s.close());
  // Apps read the instance before anyone logs in, even when the API otherwise needs a token.
  const i = await s.api(null, "GET", "/api/v2/instance");
  assert.equal(i.registrations.enabled, false);
  assert.equal(i.registrations.message, null);
  assert.deepEqual(i.configuration.timelines_access.hashtag_feeds, { local: "authenticated", remote: "authenticated" });
  const v1 = await s.api(null, "GET", "/api/v1/instance");
  assert.equal(v1.registrations, false);

  const thumb = await fetch(i.thumbnail.url.replace(s.app.baseUrl, s.url));
  assert.equal(thumb.status, 200);
  assert.equal(thumb.headers.get("content-type"), "image/png");
  const bytes = Buffer.from(await thumb.arrayBuffer());
  assert.equal(bytes.subarray(1, 4).toString("latin1"), "PNG");
  const icon = await fetch(`${s.url}/instance/icons/192.png`);
  assert.equal(icon.status, 200);
  assert.equal((await fetch(`${s.url}/instance/icons/193.png`)).status, 404);
});

// The instance documents promise only what this server serves. This test reads /api/v1/instance,
// /api/v2/instance and NodeInfo as a client does and, for every capability they advertise, calls
// a representative endpoint with a token. It keeps guarding as features land: once a feature's
// routes are registered, services/capabilities.ts advertises it and its checks here start to run.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createECDH, randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import sharp from "sharp";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { startTestServer, type Res, type TestServer, type TestUser } from "../helpers/server.ts";
import { imageForm, png } from "./accounts-helpers.ts";
import * as av from "./media-av-helpers.ts";
import { type Capabilities, instanceVersion, mastodonApiVersion, routeKey, serverCapabilities } from "../../src/services/capabilities.ts";
import { getInstanceInfo } from "../../src/services/instance.ts";
import { setTermsOfService } from "../../src/services/instance-pages.ts";
import { toApiInstanceV1, toApiInstanceV2 } from "../../src/serializers/instance.ts";
import { createInvite } from "../../src/admin/invites.ts";
import { makeActor } from "../../src/admin/actor.ts";

interface Check {
  claim: string;
  run: () => Promise<void>;
}

/** A small real file of each type the media API may advertise. */
const MEDIA_SAMPLES: Record<string, () => Promise<Uint8Array>> = {
  "image/jpeg": () => sharp({ create: { width: 8, height: 8, channels: 3, background: "#123456" } }).jpeg().toBuffer(),
  "image/png": () => png(8, 8),
  "image/gif": () => sharp({ create: { width: 8, height: 8, channels: 3, background: "#123456" } }).gif().toBuffer(),
  "image/webp": () => sharp({ create: { width: 8, height: 8, channels: 3, background: "#123456" } }).webp().toBuffer(),
  "image/avif": () => sharp({ create: { width: 8, height: 8, channels: 3, background: "#123456" } }).avif().toBuffer(),
  // Nothing here encodes HEVC: a committed iPhone-like photo (test/fixtures/media/make-heic.mjs).
  "image/heic": () => readFile(new URL("../fixtures/media/iphone.heic", import.meta.url)),
  // Video and audio, made by ffmpeg; the other names Mastodon lists for them take the same files.
  "video/mp4": once(() => av.silentMp4(32, 24, 1)),
  "video/quicktime": once(() => av.mpeg4Mov(32, 24, 1)),
  "video/webm": once(() => av.vp8Webm(32, 24, 1)),
  "audio/webm": once(() => av.opusWebm(1)),
  "video/3gpp": once(() => av.threeGp(1)),
  "audio/mp4": once(() => av.m4a(1)),
  "audio/mpeg": once(() => av.mp3(1)),
  "audio/ogg": once(() => av.oggVorbis(1)),
  "video/ogg": once(() => av.theoraOgg(32, 24, 1)),
  "audio/wav": once(() => av.wav(1)),
  "audio/flac": once(() => av.flac(1)),
  "audio/aac": once(() => av.aacAdts(1)),
};
for (const [alias, type] of Object.entries({
  "image/heif": "image/heic",
  "audio/3gpp": "video/3gpp",
  "audio/m4a": "audio/mp4",
  "audio/x-m4a": "audio/mp4",
  "audio/mp3": "audio/mpeg",
  "audio/vorbis": "audio/ogg",
  "audio/wave": "audio/wav",
  "audio/x-wav": "audio/wav",
  "audio/x-pn-wave": "audio/wav",
  "audio/vnd.wave": "audio/wav",
})) {
  MEDIA_SAMPLES[alias] = MEDIA_SAMPLES[type];
}

function once(make: () => Promise<Uint8Array>): () => Promise<Uint8Array> {
  let made: Promise<Uint8Array> | undefined;
  return () => (made ??= make());
}

/** Image types the profile endpoints accept: uploadable even without the media API. */
const PROFILE_IMAGE_TYPES = new Set(["image/jpeg", "image/png", "image/gif", "image/webp"]);

function expectOk(res: Res, what: string) {
  assert.ok(res.status >= 200 && res.status < 300, `${what} → ${res.status} ${res.text.slice(0, 200)}`);
}

function expectRouted(res: Res, what: string) {
  assert.notEqual(res.status, 404, `${what} → 404 ${res.text.slice(0, 200)}`);
}

/** "4.3.0 (compatible; roost 0.1.0)" → [4, 3]. */
function releaseOf(version: string): [number, number] {
  const m = /^(\d+)\.(\d+)/.exec(version);
  assert.ok(m, `version ${JSON.stringify(version)} does not start with a Mastodon release`);
  return [Number(m[1]), Number(m[2])];
}
const atLeast = (v: [number, number], major: number, minor: number) => v[0] > major || (v[0] === major && v[1] >= minor);

/**
 * A WebSocket handshake by hand (Node 20 has no WebSocket client), sending the token the way
 * masto.js does (Sec-WebSocket-Protocol). Resolves the HTTP status, or 0 when the server drops
 * the connection without answering.
 */
function websocketHandshake(streamingBase: string, path: string, token: string): Promise<number> {
  const url = new URL(path, streamingBase.replace(/^ws(s?):/, "http$1:"));
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    const req = send(url, {
      headers: {
        connection: "Upgrade",
        upgrade: "websocket",
        "sec-websocket-version": "13",
        "sec-websocket-key": randomBytes(16).toString("base64"),
        "sec-websocket-protocol": token,
      },
    });
    req.on("upgrade", (res, socket) => {
      socket.destroy();
      resolve(res.statusCode ?? 0);
    });
    req.on("response", (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("error", () => resolve(0));
    req.end();
  });
}

/** Absolute URLs in the documents point at this server: request them by path. */
function pathOf(s: TestServer, url: string): string {
  assert.ok(url.startsWith(s.app.baseUrl + "/"), `${url} is not on this server`);
  return url.slice(s.app.baseUrl.length);
}

async function readDocuments(s: TestServer) {
  const v1 = await s.api(null, "GET", "/api/v1/instance");
  const v2 = await s.api(null, "GET", "/api/v2/instance");
  const links = await s.api(null, "GET", "/.well-known/nodeinfo");
  const href = links.links.find((l: { rel: string }) => l.rel.startsWith("http://nodeinfo.diaspora.software/ns/schema/")).href;
  const nodeinfo = JSON.parse((await s.req(null, "GET", pathOf(s, href))).text);
  return { v1, v2, nodeinfo };
}

/** Every claim of the three documents, each with the calls that make it true. */
function advertisedChecks(s: TestServer, docs: Awaited<ReturnType<typeof readDocuments>>, alice: TestUser): Check[] {
  const { v1, v2, nodeinfo } = docs;
  let voter: Promise<TestUser> | undefined;
  const bob = () => (voter ??= s.user("bob"));
  const checks: Check[] = [];
  const add = (claim: string, run: () => Promise<void>) => checks.push({ claim, run });
  const post = async (text: string) => (await s.api(alice, "POST", "/api/v1/statuses", { status: text })).id as string;

  // api_versions.mastodon: 2 is grouped notifications (Mastodon 4.3); Phanpy and Mastodon for
  // Android read their notifications from /api/v2/notifications on it.
  const apiVersion = v2.api_versions?.mastodon ?? 0;
  if (apiVersion >= 2) {
    add(`api_versions.mastodon ${apiVersion}: grouped notifications`, async () => {
      expectOk(await s.req(alice, "GET", "/api/v2/notifications"), "GET /api/v2/notifications");
      expectOk(await s.req(alice, "GET", "/api/v2/notifications/unread_count"), "GET /api/v2/notifications/unread_count");
    });
  }

  // The version number: clients enable features by release (Ice Cubes, Mastodon.py). 4.2.0 is
  // roost's floor; what a 4.2 claim implies and roost serves is checked, the gaps are listed in
  // services/capabilities.ts.
  for (const [where, version] of [["v1", v1.version], ["v2", v2.version]] as const) {
    const release = releaseOf(version);
    add(`${where} version ${version}: editing (3.5)`, async () => {
      const id = await post("first draft");
      expectOk(await s.req(alice, "PUT", `/api/v1/statuses/${id}`, { status: "second draft" }), "PUT /api/v1/statuses/:id");
      expectOk(await s.req(alice, "GET", `/api/v1/statuses/${id}/history`), "GET /api/v1/statuses/:id/history");
    });
    if (atLeast(release, 4, 0)) {
      // Ice Cubes and Mastodon for Android manage filters through v2 from 4.0 on.
      add(`${where} version ${version}: v2 filters (4.0)`, async () => {
        const f = await s.req(alice, "POST", "/api/v2/filters", { title: "spoilers", context: ["home"], keywords_attributes: [{ keyword: "finale" }] });
        expectOk(f, "POST /api/v2/filters");
        expectOk(await s.req(alice, "GET", "/api/v2/filters"), "GET /api/v2/filters");
        expectOk(await s.req(alice, "GET", `/api/v2/filters/${f.body.id}/keywords`), "GET /api/v2/filters/:id/keywords");
        expectOk(await s.req(alice, "DELETE", `/api/v2/filters/${f.body.id}`), "DELETE /api/v2/filters/:id");
      });
    }
    if (atLeast(release, 4, 2)) {
      add(`${where} version ${version}: exclusive lists (4.2)`, async () => {
        const list = await s.req(alice, "POST", "/api/v1/lists", { title: "birds", exclusive: true });
        expectOk(list, "POST /api/v1/lists");
        assert.equal(list.body.exclusive, true);
      });
    }
    if (atLeast(release, 4, 3)) {
      // Ice Cubes turns these on at 4.3 by version number alone.
      add(`${where} version ${version}: grouped and filtered notifications, link timeline (4.3)`, async () => {
        expectOk(await s.req(alice, "GET", "/api/v2/notifications"), "GET /api/v2/notifications");
        expectOk(await s.req(alice, "GET", "/api/v2/notifications/policy"), "GET /api/v2/notifications/policy");
        expectOk(await s.req(alice, "GET", "/api/v1/notifications/requests"), "GET /api/v1/notifications/requests");
        // Mastodon answers 404 "Record not found" for a link that is not trending: only a
        // missing route counts here.
        const link = await s.req(alice, "GET", "/api/v1/timelines/link?url=https%3A%2F%2Fexample.com%2F");
        assert.ok(link.status !== 404 || link.body?.error === "Record not found", `GET /api/v1/timelines/link → ${link.status} ${link.text}`);
      });
    }
  }

  const streamingUrls = [
    ["v2 configuration.urls.streaming", v2.configuration.urls.streaming],
    ["v1 urls.streaming_api", v1.urls.streaming_api],
  ] as const;
  for (const [where, url] of streamingUrls) {
    if (url === null || url === undefined) continue;
    // masto.js (Elk, Phanpy) opens `${url}/api/v1/streaming` as a WebSocket and retries forever.
    add(`${where} ${url}: WebSocket streaming`, async () => {
      const status = await websocketHandshake(url, "/api/v1/streaming?stream=user", alice.token);
      assert.equal(status, 101, `no WebSocket upgrade at ${url}/api/v1/streaming (status ${status})`);
    });
  }

  const vapidKey = v2.configuration.vapid?.public_key;
  if (vapidKey !== undefined) {
    // Mastodon for Android registers with FCM and subscribes as soon as it sees the key.
    add("configuration.vapid.public_key: Web Push subscriptions", async () => {
      const p256dh = createECDH("prime256v1");
      p256dh.generateKeys();
      const res = await s.req(alice, "POST", "/api/v1/push/subscription", {
        subscription: {
          endpoint: "https://push.example/send/abc",
          keys: { p256dh: p256dh.getPublicKey().toString("base64url"), auth: randomBytes(16).toString("base64url") },
        },
        data: { alerts: { mention: true } },
      });
      expectOk(res, "POST /api/v1/push/subscription");
      assert.equal(res.body.server_key, vapidKey);
      expectOk(await s.req(alice, "GET", "/api/v1/push/subscription"), "GET /api/v1/push/subscription");
    });
  }

  for (const [where, config] of [["v1", v1.configuration], ["v2", v2.configuration]] as const) {
    if (config.statuses.max_media_attachments > 0) {
      add(`${where} configuration.statuses.max_media_attachments ${config.statuses.max_media_attachments}: media upload`, async () => {
        const up = await s.req(alice, "POST", "/api/v2/media", imageForm("file", await png(8, 8), "dot.png", "image/png"));
        expectOk(up, "POST /api/v2/media");
        // A busy machine answers 202 (still processing): as apps do, wait for GET to answer 200.
        for (let i = 0; up.status === 202 && i < 400; i++) {
          if ((await s.req(alice, "GET", `/api/v1/media/${up.body.id}`)).status === 200) break;
          await new Promise((r) => setTimeout(r, 50));
        }
        expectOk(await s.req(alice, "POST", "/api/v1/statuses", { status: "with a picture", media_ids: [up.body.id] }), "POST /api/v1/statuses with media_ids");
      });
    }
    const types: string[] = config.media_attachments.supported_mime_types;
    const needsMediaApi = types.filter((t) => !PROFILE_IMAGE_TYPES.has(t));
    add(`${where} configuration.media_attachments.supported_mime_types: each type uploadable`, async () => {
      // Avatars and headers take the profile image types; anything else needs the media API.
      if (types.includes("image/png")) {
        const res = await s.req(alice, "PATCH", "/api/v1/accounts/update_credentials", imageForm("avatar", await png(16, 16), "me.png", "image/png"));
        expectOk(res, "PATCH update_credentials with an avatar");
      }
      if (needsMediaApi.length > 0) {
        assert.ok(config.statuses.max_media_attachments > 0, `${needsMediaApi.join(", ")} listed, but no media can be attached`);
      }
      if (config.statuses.max_media_attachments === 0) return;
      // With the media API, every listed type is uploaded as a real file of that type.
      for (const type of types) {
        const sample = MEDIA_SAMPLES[type];
        assert.ok(sample, `${type} is listed: add a sample file of it to MEDIA_SAMPLES`);
        const up = await s.req(alice, "POST", "/api/v2/media", imageForm("file", await sample(), "sample", type));
        expectOk(up, `POST /api/v2/media with ${type}`);
      }
    });
    if (config.polls.max_options >= 2) {
      add(`${where} configuration.polls.max_options ${config.polls.max_options}: polls`, async () => {
        const st = await s.req(alice, "POST", "/api/v1/statuses", { status: "tea or coffee?", poll: { options: ["tea", "coffee"], expires_in: 3600 } });
        expectOk(st, "POST /api/v1/statuses with a poll");
        const pollId = st.body.poll?.id;
        assert.ok(pollId, "the created status has no poll");
        expectOk(await s.req(await bob(), "GET", `/api/v1/polls/${pollId}`), "GET /api/v1/polls/:id");
        expectOk(await s.req(await bob(), "POST", `/api/v1/polls/${pollId}/votes`, { choices: [0] }), "POST /api/v1/polls/:id/votes");
      });
    }
  }

  const conf = v2.configuration;
  if (conf.translation.enabled) {
    add("configuration.translation.enabled: translation", async () => {
      const id = await post("Bonjour tout le monde");
      expectRouted(await s.req(alice, "POST", `/api/v1/statuses/${id}/translate`, { lang: "en" }), "POST /api/v1/statuses/:id/translate");
      expectOk(await s.req(alice, "GET", "/api/v1/instance/translation_languages"), "GET /api/v1/instance/translation_languages");
    });
  }
  if (conf.accounts.max_featured_tags > 0) {
    add(`configuration.accounts.max_featured_tags ${conf.accounts.max_featured_tags}: featured tags`, async () => {
      const created = await s.req(alice, "POST", "/api/v1/featured_tags", { name: "birds" });
      expectOk(created, "POST /api/v1/featured_tags");
      expectOk(await s.req(alice, "GET", "/api/v1/featured_tags"), "GET /api/v1/featured_tags");
      expectOk(await s.req(alice, "GET", "/api/v1/featured_tags/suggestions"), "GET /api/v1/featured_tags/suggestions");
      expectOk(await s.req(null, "GET", `/api/v1/accounts/${alice.id}/featured_tags`), "GET /api/v1/accounts/:id/featured_tags");
      expectOk(await s.req(alice, "DELETE", `/api/v1/featured_tags/${created.body.id}`), "DELETE /api/v1/featured_tags/:id");
    });
  }
  if (conf.accounts.max_pinned_statuses > 0) {
    add(`configuration.accounts.max_pinned_statuses ${conf.accounts.max_pinned_statuses}: pins`, async () => {
      const id = await post("pin me");
      expectOk(await s.req(alice, "POST", `/api/v1/statuses/${id}/pin`), "POST /api/v1/statuses/:id/pin");
    });
  }
  if (conf.accounts.max_profile_fields > 0) {
    add(`configuration.accounts.max_profile_fields ${conf.accounts.max_profile_fields}: profile fields`, async () => {
      const res = await s.req(alice, "PATCH", "/api/v1/accounts/update_credentials", { fields_attributes: { "0": { name: "home", value: "nest" } } });
      expectOk(res, "PATCH update_credentials with fields_attributes");
      assert.equal(res.body.fields[0].name, "home");
    });
  }

  // timelines_access: "public" feeds answer anonymous callers, "authenticated" ones need a token.
  const feeds: Record<string, (scope: string) => string> = {
    live_feeds: (scope) => `/api/v1/timelines/public?${scope}=true`,
    hashtag_feeds: (scope) => `/api/v1/timelines/tag/birds?${scope}=true`,
    trending_link_feeds: (scope) => `/api/v1/timelines/link?url=https%3A%2F%2Fexample.com%2F&${scope}=true`,
  };
  for (const [feed, pathFor] of Object.entries(feeds)) {
    for (const scope of ["local", "remote"]) {
      const access = conf.timelines_access[feed][scope];
      if (access === "disabled") continue;
      add(`configuration.timelines_access.${feed}.${scope} ${access}`, async () => {
        const res = await s.req(access === "public" ? null : alice, "GET", pathFor(scope));
        assert.ok(res.status !== 404 || res.body?.error === "Record not found", `GET ${pathFor(scope)} → ${res.status} ${res.text}`);
        assert.ok(res.status !== 401, `GET ${pathFor(scope)} → 401 for a ${access} feed`);
      });
    }
  }

  // Pages, images and accounts the documents link to.
  const urls = conf.urls;
  for (const key of ["about", "privacy_policy", "terms_of_service"]) {
    if (urls[key] === null || urls[key] === undefined) continue;
    add(`configuration.urls.${key}`, async () => expectOk(await s.req(null, "GET", pathOf(s, urls[key])), urls[key]));
  }
  add("thumbnail and icons", async () => {
    expectOk(await s.req(null, "GET", pathOf(s, v2.thumbnail.url)), v2.thumbnail.url);
    expectOk(await s.req(null, "GET", pathOf(s, v1.thumbnail)), v1.thumbnail);
    for (const icon of v2.icon) expectOk(await s.req(null, "GET", pathOf(s, icon.src)), icon.src);
  });
  if (v2.contact.account) {
    add("contact.account", async () => expectOk(await s.req(alice, "GET", `/api/v1/accounts/${v2.contact.account.id}`), "GET /api/v1/accounts/:id"));
  }
  add("rules", async () => {
    const res = await s.req(null, "GET", "/api/v1/instance/rules");
    expectOk(res, "GET /api/v1/instance/rules");
    assert.deepEqual(res.body, v2.rules);
  });
  if (v2.registrations.enabled || v1.registrations || nodeinfo.openRegistrations) {
    add("registrations open: the sign-up API", async () => expectRouted(await s.req(null, "POST", "/api/v1/accounts", {}), "POST /api/v1/accounts"));
  }
  if (v1.invites_enabled) {
    // Everyone may invite: alice's invite link answers apps (an unknown code is a 404).
    add("invites_enabled: invite links", async () => {
      const invite = createInvite(s.app, makeActor(s.app, alice.user, alice.account, "api"), { maxUses: 1 });
      const res = await s.req(null, "GET", `/invite/${invite.code}`, undefined, { accept: "application/json" });
      expectOk(res, "GET /invite/:code");
      assert.equal(res.body.invite_code, invite.code);
    });
  }

  // NodeInfo: what other servers rely on.
  add(`nodeinfo protocols ${nodeinfo.protocols.join(", ")}`, async () => {
    assert.deepEqual(nodeinfo.protocols, ["activitypub"], "a protocol without a check here");
    const handle = `acct:alice@${s.app.config.domain}`;
    expectOk(await s.req(null, "GET", `/.well-known/webfinger?resource=${encodeURIComponent(handle)}`), "WebFinger");
    const actor = await s.req(null, "GET", "/users/alice", undefined, { accept: "application/activity+json" });
    expectOk(actor, "GET /users/alice as ActivityPub");
  });
  add("nodeinfo services", async () => {
    assert.deepEqual(nodeinfo.services, { inbound: [], outbound: [] }, "a service without a check here");
  });
  return checks;
}

// One server for the file; its limits differ from the defaults so the last test sees them.
let s: TestServer;
before(async () => {
  s = await startTestServer({ config: { maxMediaAttachments: 6, maxPollOptions: 5 } });
});
after(() => s.close());

test("every capability advertised by the instance documents and NodeInfo is served", async (t) => {
  const alice = await s.user("alice", { role: "admin" }); // an admin, so that contact.account is set
  setTermsOfService(s.app, { text: "Be nice." }); // so that urls.terms_of_service is set
  const docs = await readDocuments(s);
  const checks = advertisedChecks(s, docs, alice);
  assert.ok(checks.length >= 15, `only ${checks.length} claims found`);
  for (const c of checks) await t.test(c.claim, c.run);
});

test("capabilities come from the routes the server registered", () => {
  assert.deepEqual(s.app.routes, new Set(s.routes.map((r) => routeKey(r.method, r.path))));
  assert.ok(s.app.routes.has("GET /api/v1/statuses/:"));
  // Served today among the optional capabilities (update this as features land).
  const caps = serverCapabilities(s.app);
  assert.deepEqual(Object.keys(caps).filter((k) => caps[k as keyof Capabilities]), ["groupedNotifications", "notificationRequests", "linkTimeline", "streaming", "webPush", "mediaUpload", "polls", "featuredTags"]);
});

test("with every capability served, both documents advertise all of it (Mastodon 4.3)", () => {
  const all = Object.fromEntries(Object.keys(serverCapabilities(s.app)).map((k) => [k, true])) as unknown as Capabilities;
  const info = { ...getInstanceInfo(s.app, { stats: true }), capabilities: all, version: instanceVersion(all), apiVersion: mastodonApiVersion(all) };
  const c = s.app.config;
  const v2 = toApiInstanceV2(s.app, info) as any;
  assert.equal(v2.version, "4.3.0 (compatible; roost 0.1.0)");
  assert.deepEqual(v2.api_versions, { mastodon: 2 });
  assert.equal(v2.configuration.urls.streaming, `ws://${c.domain}`);
  assert.deepEqual(v2.configuration.vapid, { public_key: c.vapidPublicKey });
  assert.equal(v2.configuration.accounts.max_featured_tags, 10);
  assert.equal(v2.configuration.statuses.max_media_attachments, 6);
  // Exactly the types the upload API accepts: with ffmpeg (the npm packages), video and audio too.
  assert.deepEqual(v2.configuration.media_attachments.supported_mime_types, ["image/jpeg", "image/png", "image/gif", "image/webp", "image/avif", "image/heic", "image/heif", "video/mp4", "video/quicktime", "video/webm", "audio/webm", "video/3gpp", "audio/3gpp", "audio/mp4", "audio/m4a", "audio/x-m4a", "audio/mpeg", "audio/mp3", "audio/ogg", "audio/vorbis", "video/ogg", "audio/wav", "audio/wave", "audio/x-wav", "audio/x-pn-wave", "audio/vnd.wave", "audio/flac", "audio/aac"]);
  assert.equal(v2.configuration.polls.max_options, 5);
  assert.deepEqual(v2.configuration.translation, { enabled: true });
  assert.deepEqual(v2.configuration.timelines_access.trending_link_feeds, { local: "public", remote: "public" });
  const v1 = toApiInstanceV1(s.app, info) as any;
  assert.equal(v1.version, v2.version);
  assert.deepEqual(v1.urls, { streaming_api: `ws://${c.domain}` });
  assert.deepEqual(v1.configuration.statuses, v2.configuration.statuses);
  assert.deepEqual(v1.configuration.media_attachments, v2.configuration.media_attachments);
  assert.deepEqual(v1.configuration.polls, v2.configuration.polls);
  assert.deepEqual(v1.configuration.accounts, { max_featured_tags: 10 });
});

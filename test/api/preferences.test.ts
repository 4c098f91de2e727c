import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer } from "../helpers/server.ts";
import { updateUser } from "../../src/storage/users.ts";

test("GET /api/v1/preferences: Mastodon's defaults, then the user's choices", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  assert.deepEqual(await s.api(alice, "GET", "/api/v1/preferences"), {
    "posting:default:visibility": "public",
    "posting:default:sensitive": false,
    "posting:default:language": null,
    "posting:default:quote_policy": "public",
    "reading:expand:media": "default",
    "reading:expand:spoilers": false,
    "reading:autoplay:gifs": false,
  });

  // Posting defaults come from update_credentials' source[...]; reading ones from settings.
  await s.api(alice, "PATCH", "/api/v1/accounts/update_credentials", { source: { privacy: "unlisted", sensitive: true, language: "fr" } });
  updateUser(s.app.db, alice.user.id, {
    settings: { "reading:expand:media": "show_all", "reading:expand:spoilers": true, "reading:autoplay:gifs": true },
  });
  assert.deepEqual(await s.api(alice, "GET", "/api/v1/preferences"), {
    "posting:default:visibility": "unlisted",
    "posting:default:sensitive": true,
    "posting:default:language": "fr",
    "posting:default:quote_policy": "public",
    "reading:expand:media": "show_all",
    "reading:expand:spoilers": true,
    "reading:autoplay:gifs": true,
  });

  assert.equal((await s.req(null, "GET", "/api/v1/preferences")).status, 401);
  const writer = await s.user("writer", { scopes: ["write"] });
  assert.equal((await s.req(writer, "GET", "/api/v1/preferences")).status, 403);
  const granular = await s.user("granular", { scopes: ["read:accounts"] });
  assert.equal((await s.req(granular, "GET", "/api/v1/preferences")).status, 200);
});

// megalodon (the client library of Whalebird and other apps) picks an API flavour with
// `detector()`, which reads NodeInfo: software.name, else metadata.upstream.name. Apps refuse a
// server it cannot place ("Unknown SNS"), so this runs the real detector against roost.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Mastodon, detector } from "megalodon";
import { startTestServer } from "../helpers/server.ts";

test("megalodon's detector() takes roost for Mastodon, and its Mastodon client signs in", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  assert.equal(await detector(s.url), "mastodon");

  const alice = await s.user("alice");
  const client = new Mastodon(s.url, alice.token);
  const me = await client.verifyAccountCredentials();
  assert.equal(me.status, 200);
  assert.equal(me.data.id, alice.id);
  assert.equal(me.data.acct, "alice");
});

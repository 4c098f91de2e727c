// Peers that close kept-alive connections without saying so (snac2, some proxies; issue 18):
// look-ups, mentions, search and deliveries all reach them, and a failed remote fetch is logged.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer as createNetServer, type AddressInfo } from "node:net";
import { createLog } from "../../src/lib/log.ts";
import type { ClosingMode } from "../helpers/closing-connections.ts";
import { startFakeRemote } from "../helpers/fake-remote.ts";
import { clearReceived, ofType, remoteAccount, remoteFollows } from "../helpers/outbox.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { jrd, startStubPeer } from "./resolve-helpers.ts";

const AS = "https://www.w3.org/ns/activitystreams";

for (const mode of ["after-response", "idle"] as ClosingMode[]) {
  const how = mode === "after-response" ? "closes every connection after answering" : "closes connections idle for 50 ms";
  test(`a peer that ${how}, unannounced: look-up with counts, mention, search by URL and 20 deliveries all reach it`, async (t) => {
    const s = await startTestServer();
    const r = await startFakeRemote({ connections: mode });
    t.after(() => Promise.all([s.close(), r.close()]));
    const closing = r.closing!;
    const alice = await s.user("alice");
    const bob = r.actor("bob");
    const coll = (id: string, totalItems: number) => ({ "@context": AS, id, type: "OrderedCollection", totalItems, first: `${id}?page=1` });
    r.serve("/users/bob/outbox", coll(`${bob.id}/outbox`, 42));
    r.serve("/users/bob/followers", coll(`${bob.id}/followers`, 7));
    r.serve("/users/bob/following", coll(`${bob.id}/following`, 3));

    // Each step starts just as the peer has closed the connection roost keeps for it.
    await closing.allClosed();
    const found = await s.api(alice, "GET", `/api/v1/accounts/lookup?acct=${encodeURIComponent(`bob@${r.domain}`)}`);
    assert.equal(found.acct, `bob@${r.domain}`);
    await closing.allClosed();
    await s.drainJobs(); // account.counts: outbox, followers and following
    const shown = await s.api(alice, "GET", `/api/v1/accounts/${found.id}`);
    assert.deepEqual([shown.statuses_count, shown.followers_count, shown.following_count], [42, 7, 3]);

    r.actor("carol");
    await closing.allClosed();
    const post = await s.api(alice, "POST", "/api/v1/statuses", { status: `hi @carol@${r.domain}` });
    assert.deepEqual(post.mentions.map((m: { acct: string }) => m.acct), [`carol@${r.domain}`]);

    const dave = r.actor("dave");
    const noteId = `${r.origin}/notes/1`;
    r.serve("/notes/1", { "@context": AS, id: noteId, type: "Note", attributedTo: dave.id, content: "<p>by dave</p>", to: [`${AS}#Public`], published: "2024-05-01T10:00:00Z" });
    await closing.allClosed();
    const search = await s.api(alice, "GET", `/api/v2/search?q=${encodeURIComponent(noteId)}&resolve=true&type=statuses`);
    assert.deepEqual(search.statuses.map((st: { uri: string; account: { acct: string } }) => [st.uri, st.account.acct]), [[noteId, `dave@${r.domain}`]]);

    remoteFollows(s, await remoteAccount(s, bob), alice);
    await s.drainJobs();
    clearReceived(r);
    for (let i = 0; i < 20; i++) await s.api(alice, "POST", "/api/v1/statuses", { status: `post ${i}` });
    await closing.allClosed();
    await s.drainJobs();
    assert.equal(ofType(r, "Create").length, 20);
    const left = s.app.db.prepare("SELECT count(*) AS n FROM jobs WHERE name = 'federation.deliver'").get() as { n: bigint };
    assert.equal(left.n, 0n, "no delivery waits for a retry");
    assert.ok(closing.dropped > 0, "requests did go out on connections the peer had closed");
  });
}

interface LogEntry {
  level: string;
  msg: string;
  host?: string;
  url?: string;
  reason?: string;
}

function captureLog(s: TestServer): LogEntry[] {
  const lines: LogEntry[] = [];
  s.app.log = createLog("debug", (line) => lines.push(JSON.parse(line) as LogEntry));
  return lines;
}

async function deadPort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

test("a look-up whose actor cannot be fetched answers 503 and leaves one log line with host, URL and reason", async (t) => {
  const s = await startTestServer();
  const peer = await startStubPeer();
  t.after(() => Promise.all([s.close(), peer.close()]));
  const alice = await s.user("alice");
  const logs = captureLog(s);
  const lookup = (name: string) => s.req(alice, "GET", `/api/v1/accounts/lookup?acct=${encodeURIComponent(`${name}@${peer.domain}`)}`);

  // WebFinger answers; the actor's server is down.
  const downActor = `http://127.0.0.1:${await deadPort()}/users/bob`;
  peer.route("/.well-known/webfinger", (url) =>
    url.searchParams.get("resource") === `acct:bob@${peer.domain}` ? jrd(`acct:bob@${peer.domain}`, downActor) : jrd(`acct:eve@${peer.domain}`, `${peer.origin}/users/eve`),
  );
  const down = await lookup("bob");
  assert.deepEqual([down.status, down.body], [503, { error: "Remote data could not be fetched" }]);
  // (The access log writes its own "request" line per API call.)
  let lines = logs.filter((l) => l.level !== "debug" && l.msg !== "request");
  assert.equal(lines.length, 1, JSON.stringify(lines));
  assert.deepEqual([lines[0].level, lines[0].msg, lines[0].host, lines[0].url], ["info", "remote request failed", new URL(downActor).host, downActor]);
  assert.match(lines[0].reason ?? "", /ECONNREFUSED/);

  // The actor's server answers, but with an error.
  peer.route("/users/eve", { status: 500, body: "oops", type: "text/plain" });
  logs.length = 0;
  assert.equal((await lookup("eve")).status, 503);
  lines = logs.filter((l) => l.level !== "debug" && l.msg !== "request");
  assert.deepEqual(
    lines.map((l) => [l.level, l.msg, l.host, l.url, l.reason]),
    [["info", "remote request failed", peer.domain, `${peer.origin}/users/eve`, "HTTP 500"]],
  );
});

// Issue 4's user story end to end: two real roost instances (CLI subprocesses on two loopback
// ports, `--protocol http --allow-private-addresses`) federating over ActivityPub, driven only
// through the Mastodon client API, with effects asserted on both sides. Jobs run on their own
// in each server, so every cross-instance effect is polled for with a deadline.
//
// Each step is a subtest: one that fails reports its own request and response, and the steps
// that need its outcome are skipped with the reason, so one missing piece does not hide the
// state of the others.
import assert from "node:assert/strict";
import { test, type TestContext } from "node:test";
import { eventually } from "../helpers/fake-remote.ts";
import { type Instance, type InstanceUser, startInstance } from "../helpers/instances.ts";

interface ApiAccount {
  id: string;
  acct: string;
  locked: boolean;
  followers_count: number;
  following_count: number;
}
interface ApiStatus {
  id: string;
  uri: string;
  content: string;
  visibility: string;
  edited_at: string | null;
  in_reply_to_id: string | null;
  favourites_count: number;
  reblogs_count: number;
  replies_count: number;
  account: ApiAccount;
  mentions: { id: string; acct: string }[];
  reblog: ApiStatus | null;
}
interface ApiRelationship {
  id: string;
  following: boolean;
  requested: boolean;
  followed_by: boolean;
  blocking: boolean;
  blocked_by: boolean;
}
interface ApiNotification {
  type: string;
  account: ApiAccount;
  status?: ApiStatus;
}
interface ReportRow {
  /** Read as text: snowflake ids exceed JavaScript's safe integers. */
  account_id: string;
  comment: string;
  status_ids: string;
  forwarded: number;
  uri: string | null;
}

// A cross-instance effect is one or two job hops (HTTP + a job on each side); a few seconds is
// plenty on an idle machine and leaves room on a loaded 2-core one.
const DEADLINE_MS = 8000;

test("two roost instances federate: the issue's user story over the client API", { timeout: 120_000 }, async (t) => {
  const [A, B] = await Promise.all([startInstance("a"), startInstance("b")]);
  // Stopped here (and not only in t.after) so the exit codes are asserted on success too.
  t.after(() => Promise.all([A.stop(), B.stop()]));
  const [alice, bob] = await Promise.all([A.user("alice"), B.user("bob")]);
  const bobHandle = `bob@${B.domain}`;
  const aliceHandle = `alice@${A.domain}`;

  /** What earlier steps learned; a step that needs a missing value is skipped. */
  const s: {
    bobOnA?: string; // bob's account id on A
    aliceOnB?: string; // alice's account id on B
    followed?: boolean;
    bobPublic?: string; // status ids on B ...
    bobPrivate?: string;
    bobPublicOnA?: string; // ... and the same statuses on A
    bobPrivateOnA?: string;
  } = {};
  const failed: string[] = [];

  async function step(name: string, needs: (keyof typeof s)[], fn: (t: TestContext) => Promise<void>): Promise<void> {
    const missing = needs.filter((k) => !s[k]);
    await t.test(name, async (st) => {
      if (missing.length) return st.skip(`needs ${missing.join(", ")} from an earlier step`);
      try {
        await fn(st);
      } catch (e) {
        failed.push(name);
        throw e;
      }
    });
  }

  /** Polls until `fn` holds; on timeout, adds both instances' failed jobs to the error. */
  const until = async <T>(what: string, fn: () => Promise<T>): Promise<NonNullable<T>> => {
    try {
      // eventually() resolves only with a truthy value.
      return (await eventually(fn, DEADLINE_MS, what)) as NonNullable<T>;
    } catch (e) {
      const tail = (i: Instance) => i.stderr().trim().split("\n").slice(-5).join("\n    ");
      throw new Error(
        `${(e as Error).message}\n  jobs on A: ${A.jobTrouble()}\n  jobs on B: ${B.jobTrouble()}` +
          `\n  A's log:\n    ${tail(A)}\n  B's log:\n    ${tail(B)}`,
      );
    }
  };

  const relationship = async (inst: Instance, who: InstanceUser, id: string) =>
    (await inst.api<ApiRelationship[]>(who, "GET", `/api/v1/accounts/relationships?id[]=${id}`))[0];
  const notifications = (inst: Instance, who: InstanceUser) => inst.api<ApiNotification[]>(who, "GET", "/api/v1/notifications");
  const homeStatus = async (needle: string) =>
    (await A.api<ApiStatus[]>(alice, "GET", "/api/v1/timelines/home")).find((st) => st.account.acct === bobHandle && st.content.includes(needle));

  await step("bob locks his account on B", [], async () => {
    const me = await B.api<ApiAccount>(bob, "PATCH", "/api/v1/accounts/update_credentials", { locked: true });
    assert.equal(me.locked, true);
  });

  await step("alice finds @bob@B with search resolve=true", [], async () => {
    const q = encodeURIComponent(`@${bobHandle}`);
    const r = await A.req<{ accounts: ApiAccount[] }>(alice, "GET", `/api/v2/search?q=${q}&resolve=true&type=accounts`);
    assert.equal(r.status, 200, `GET /api/v2/search → ${r.status} ${r.text.slice(0, 300)}`);
    assert.equal(r.body.accounts.length, 1, r.text.slice(0, 300));
    const found = r.body.accounts[0];
    assert.equal(found.acct, bobHandle);
    assert.equal(found.locked, true);
    s.bobOnA = found.id;
  });

  await step("alice's follow request reaches bob, who authorizes it", ["bobOnA"], async () => {
    const rel = await A.api<ApiRelationship>(alice, "POST", `/api/v1/accounts/${s.bobOnA}/follow`);
    assert.equal(rel.following, false, "a locked account is not followed before its Accept");
    assert.equal(rel.requested, true);

    const request = await until("the follow request on B", async () =>
      (await B.api<ApiAccount[]>(bob, "GET", "/api/v1/follow_requests")).find((a) => a.acct === aliceHandle),
    );
    s.aliceOnB = request.id;
    const accepted = await B.api<ApiRelationship>(bob, "POST", `/api/v1/follow_requests/${request.id}/authorize`);
    assert.equal(accepted.followed_by, true);
    assert.deepEqual(await B.api(bob, "GET", "/api/v1/follow_requests"), []);

    // The Accept travels back: alice follows bob on A, and both counts agree.
    await until("alice following bob on A", async () => (await relationship(A, alice, s.bobOnA!)).following);
    assert.equal((await relationship(A, alice, s.bobOnA!)).requested, false);
    assert.equal((await B.api<ApiAccount>(bob, "GET", `/api/v1/accounts/${bob.id}`)).followers_count, 1);
    assert.equal((await A.api<ApiAccount>(alice, "GET", `/api/v1/accounts/${alice.id}`)).following_count, 1);
    s.followed = true;
  });

  await step("bob's public and followers-only posts reach alice's home on A", ["followed"], async () => {
    s.bobPublic = (await B.api<ApiStatus>(bob, "POST", "/api/v1/statuses", { status: "Hello from B", visibility: "public" })).id;
    s.bobPrivate = (await B.api<ApiStatus>(bob, "POST", "/api/v1/statuses", { status: "Only for my followers", visibility: "private" })).id;
    const pub = await until("bob's public post in alice's home", () => homeStatus("Hello from B"));
    const priv = await until("bob's followers-only post in alice's home", () => homeStatus("Only for my followers"));
    assert.equal(pub.visibility, "public");
    assert.equal(priv.visibility, "private");
    assert.equal(pub.account.id, s.bobOnA);
    const onB = await B.api<ApiStatus>(bob, "GET", `/api/v1/statuses/${s.bobPublic}`);
    assert.equal(pub.uri, onB.uri, "A knows the post by B's uri");
    s.bobPublicOnA = pub.id;
    s.bobPrivateOnA = priv.id;
  });

  await step("alice's reply notifies bob and joins the thread on B", ["bobPublicOnA", "bobPublic"], async () => {
    const reply = await A.api<ApiStatus>(alice, "POST", "/api/v1/statuses", {
      status: `@${bobHandle} nice to meet you`,
      in_reply_to_id: s.bobPublicOnA,
    });
    assert.equal(reply.in_reply_to_id, s.bobPublicOnA);
    assert.deepEqual(reply.mentions.map((m) => m.acct), [bobHandle]);

    const n = await until("bob's mention notification on B", async () =>
      (await notifications(B, bob)).find((x) => x.type === "mention" && x.account.acct === aliceHandle),
    );
    assert.match(n.status!.content, /nice to meet you/);
    assert.equal(n.status!.in_reply_to_id, s.bobPublic);
    const ctx = await B.api<{ descendants: ApiStatus[] }>(bob, "GET", `/api/v1/statuses/${s.bobPublic}/context`);
    assert.deepEqual(ctx.descendants.map((d) => d.account.acct), [aliceHandle]);
    assert.equal((await B.api<ApiStatus>(bob, "GET", `/api/v1/statuses/${s.bobPublic}`)).replies_count, 1);
  });

  await step("alice's favourite and boost notify bob and count on B", ["bobPublicOnA", "bobPublic"], async () => {
    const fav = await A.api<ApiStatus>(alice, "POST", `/api/v1/statuses/${s.bobPublicOnA}/favourite`);
    assert.equal(fav.favourites_count, 1);
    const boost = await A.api<ApiStatus>(alice, "POST", `/api/v1/statuses/${s.bobPublicOnA}/reblog`);
    assert.equal(boost.reblog?.id, s.bobPublicOnA);

    const types = await until("favourite and reblog notifications on B", async () => {
      const got = (await notifications(B, bob)).filter((x) => x.account.acct === aliceHandle && x.status?.id === s.bobPublic);
      const t = new Set(got.map((x) => x.type));
      return t.has("favourite") && t.has("reblog") ? t : undefined;
    });
    assert.ok(types.has("favourite") && types.has("reblog"));
    const onB = await B.api<ApiStatus>(bob, "GET", `/api/v1/statuses/${s.bobPublic}`);
    assert.equal(onB.favourites_count, 1);
    assert.equal(onB.reblogs_count, 1);
  });

  await step("bob's edit reaches A with its history", ["bobPublicOnA", "bobPublic"], async () => {
    await B.api(bob, "PUT", `/api/v1/statuses/${s.bobPublic}`, { status: "Hello from B, edited" });
    const edited = await until("the edit on A", async () => {
      const st = await A.api<ApiStatus>(alice, "GET", `/api/v1/statuses/${s.bobPublicOnA}`);
      return st.content.includes("edited") ? st : undefined;
    });
    assert.ok(edited.edited_at, "edited_at is set");
    const history = await A.api<{ content: string }[]>(alice, "GET", `/api/v1/statuses/${s.bobPublicOnA}/history`);
    assert.equal(history.length, 2);
    assert.match(history[0].content, /Hello from B/);
    assert.doesNotMatch(history[0].content, /edited/);
    assert.match(history[1].content, /Hello from B, edited/);
  });

  await step("bob's poll: alice votes from A, B counts it, A refreshes the tallies on read", ["followed"], async () => {
    const asked = await B.api(bob, "POST", "/api/v1/statuses", { status: "Tea or coffee?", poll: { options: ["tea", "coffee"], expires_in: 3600 } });
    const onA: any = await until("bob's poll in alice's home", () => homeStatus("Tea or coffee?"));
    assert.deepEqual(onA.poll.options, [{ title: "tea", votes_count: 0 }, { title: "coffee", votes_count: 0 }]);
    const voted = await A.api(alice, "POST", `/api/v1/polls/${onA.poll.id}/votes`, { choices: [1] });
    assert.deepEqual([voted.own_votes, voted.votes_count], [[1], 1]);
    await until("alice's vote counted on B", async () => (await B.api(bob, "GET", `/api/v1/polls/${asked.poll.id}`)).votes_count === 1);
    const carol = await B.user("carol");
    await B.api(carol, "POST", `/api/v1/polls/${asked.poll.id}/votes`, { choices: [0] });
    // A's first signed-in read of the remote poll fetches it again from B (Mastodon's refresh on read).
    const fresh = await A.api(alice, "GET", `/api/v1/polls/${onA.poll.id}`);
    assert.deepEqual(
      [fresh.options.map((o: { votes_count: number }) => o.votes_count), fresh.voters_count, fresh.own_votes],
      [[1, 1], 2, [1]],
    );
  });

  await step("bob's deletion removes the post on A", ["bobPrivateOnA", "bobPrivate"], async () => {
    await B.api(bob, "DELETE", `/api/v1/statuses/${s.bobPrivate}`);
    await until("404 for the deleted post on A", async () => (await A.req(alice, "GET", `/api/v1/statuses/${s.bobPrivateOnA}`)).status === 404);
    assert.equal(await homeStatus("Only for my followers"), undefined);
  });

  await step("a post by alice mentioning @bob@127.0.0.1:PORT reaches bob", [], async () => {
    const post = await A.api<ApiStatus>(alice, "POST", "/api/v1/statuses", { status: `Hey @${bobHandle}, a mention out of the blue` });
    assert.deepEqual(post.mentions.map((m) => m.acct), [bobHandle]);
    const n = await until("the mention notification on B", async () =>
      (await notifications(B, bob)).find((x) => x.type === "mention" && (x.status?.content ?? "").includes("out of the blue")),
    );
    assert.equal(n.account.acct, aliceHandle);
    assert.equal(n.status!.mentions.some((m) => m.id === bob.id), true);
  });

  await step("alice unfollows: bob's followers count drops on B", ["followed", "aliceOnB", "bobOnA"], async () => {
    const rel = await A.api<ApiRelationship>(alice, "POST", `/api/v1/accounts/${s.bobOnA}/unfollow`);
    assert.equal(rel.following, false);
    await until("followers_count 0 on B", async () => (await B.api<ApiAccount>(bob, "GET", `/api/v1/accounts/${bob.id}`)).followers_count === 0);
    assert.equal((await relationship(B, bob, s.aliceOnB!)).followed_by, false);
  });

  // Before the block: once bob blocks alice, his posts are hidden from her and reporting them
  // is a 404, as in Mastodon (ReportService finds them through AccountStatusesFilter).
  await step("alice's forwarded report lands on B", ["bobOnA", "bobPublicOnA", "bobPublic"], async () => {
    const report = await A.req<{ id: string; forwarded: boolean }>(alice, "POST", "/api/v1/reports", {
      account_id: s.bobOnA,
      status_ids: [s.bobPublicOnA],
      comment: "Federated report from A",
      forward: true,
    });
    assert.equal(report.status, 200, `POST /api/v1/reports → ${report.status} ${report.text.slice(0, 300)}`);
    assert.equal(report.body.forwarded, true);
    // There is no admin API yet: read B's database (read-only) for the Flag's report.
    const row = await until("the report row on B", async () =>
      B.query((db) =>
        db
          .prepare("SELECT CAST(account_id AS TEXT) AS account_id, comment, status_ids, forwarded, uri FROM reports WHERE CAST(target_account_id AS TEXT) = ?")
          .get(bob.id) as ReportRow | undefined,
      ),
    );
    assert.equal(row.comment, "Federated report from A");
    assert.deepEqual(JSON.parse(row.status_ids), [s.bobPublic]);
    assert.ok(row.uri?.startsWith(A.url), `the Flag's id is on A: ${row.uri}`);
    // Flags come from A's instance actor (Mastodon's way: the reporter stays anonymous).
    const reporter = B.query((db) => db.prepare("SELECT username, domain FROM accounts WHERE CAST(id AS TEXT) = ?").get(row.account_id) as { username: string; domain: string });
    assert.equal(reporter.domain, A.domain);
    assert.notEqual(reporter.username, "alice");
  });

  await step("bob blocks alice: her follow ends and A shows blocked_by", ["aliceOnB", "bobOnA"], async () => {
    // Follow again first, so the block has a follow to end.
    await A.api(alice, "POST", `/api/v1/accounts/${s.bobOnA}/follow`);
    await until("the second follow request on B", async () =>
      (await B.api<ApiAccount[]>(bob, "GET", "/api/v1/follow_requests")).some((a) => a.id === s.aliceOnB),
    );
    await B.api(bob, "POST", `/api/v1/follow_requests/${s.aliceOnB}/authorize`);
    await until("alice following bob again", async () => (await relationship(A, alice, s.bobOnA!)).following);

    const rel = await B.api<ApiRelationship>(bob, "POST", `/api/v1/accounts/${s.aliceOnB}/block`);
    assert.equal(rel.blocking, true);
    assert.equal(rel.followed_by, false, "blocking removes the follower on B at once");
    assert.equal((await B.api<ApiAccount>(bob, "GET", `/api/v1/accounts/${bob.id}`)).followers_count, 0);
    const onA = await until("the Block on A", async () => {
      const r = await relationship(A, alice, s.bobOnA!);
      return r.blocked_by ? r : undefined;
    });
    assert.equal(onA.following, false);
    assert.equal(onA.requested, false);
    assert.equal((await A.api<ApiAccount>(alice, "GET", `/api/v1/accounts/${alice.id}`)).following_count, 0);
  });

  const codes = await Promise.all([A.stop(), B.stop()]);
  assert.deepEqual(codes, [0, 0], "both servers exit 0 on SIGTERM");
  assert.deepEqual(failed, [], `failed steps: ${failed.join("; ")}`);
});

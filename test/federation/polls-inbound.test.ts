// Remote polls (AP §4.6, §5.1, §5.2, §5.12) in the shapes Mastodon, GoToSocial, Akkoma and
// Misskey send them (test/fixtures/remote/<software>/*-question.json, vote.json): a Question
// becomes a poll, a local vote goes back to the author as a Create(Note), an Update(Question)
// or a refresh on read brings the origin's tallies; and their votes in a local poll count.
import assert from "node:assert/strict";
import { test } from "node:test";
import { resolveAccountByUri } from "../../src/federation/resolve/accounts.ts";
import { authorizeFollowRequest, followAccount } from "../../src/services/follows.ts";
import type { FakeActor } from "../helpers/fake-remote.ts";
import { advance } from "../helpers/outbox.ts";
import { AS_CONTEXT, deliver, deliverAndRun, fixture, PUBLIC, startWorld, type World } from "./inbox-helpers.ts";

const iso = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z");

/** alice follows `actor` (accepted), so its public posts are wanted here. */
async function aliceFollows(w: World, actor: FakeActor): Promise<void> {
  const account = await resolveAccountByUri(w.s.app, actor.id);
  assert.ok(account);
  followAccount(w.s.app, w.alice.account, account, {});
  authorizeFollowRequest(w.s.app, account, w.alice.id);
  await w.s.drainJobs();
  w.remote.received.length = 0;
}

/** The status of a remote object as alice sees it. */
async function statusOf(w: World, uri: string): Promise<any> {
  const found = await w.s.api(w.alice, "GET", `/api/v2/search?q=${encodeURIComponent(uri)}&resolve=false&type=statuses`);
  assert.equal(found.statuses.length, 1, `${uri} is stored`);
  return found.statuses[0];
}

const view = (poll: any) => ({
  options: poll.options.map((o: any) => o.title),
  counts: poll.options.map((o: any) => o.votes_count),
  multiple: poll.multiple,
  voters: poll.voters_count,
  expired: poll.expired,
});

interface Case {
  file: string;
  username: string;
  created: ReturnType<typeof view>;
  choices: number[];
  afterVote: { counts: number[]; voters: number | null };
  /** The software's Update(Question) fixture, and what it leaves; none: a refresh on read instead. */
  update?: { file: string; counts: number[]; voters: number | null };
}

const CASES: Case[] = [
  {
    file: "mastodon",
    username: "bob",
    created: { options: ["Herons", "Egrets", "Storks"], counts: [3, 1, 0], multiple: false, voters: 4, expired: false },
    choices: [1],
    afterVote: { counts: [3, 2, 0], voters: 5 },
    update: { file: "mastodon/update-question", counts: [7, 2, 1], voters: 10 },
  },
  {
    file: "gotosocial",
    username: "gts",
    created: { options: ["tea", "coffee", "cocoa"], counts: [2, 1, 0], multiple: true, voters: 2, expired: false },
    choices: [0, 2],
    afterVote: { counts: [3, 1, 1], voters: 3 },
    update: { file: "gotosocial/update-question", counts: [5, 3, 1], voters: 6 },
  },
  {
    // Akkoma writes its end time into `closed` while the poll is open, and both option lists.
    file: "akkoma",
    username: "akko",
    created: { options: ["spring", "autumn"], counts: [1, 2], multiple: false, voters: 3, expired: false },
    choices: [1],
    afterVote: { counts: [1, 3], voters: 4 },
  },
  {
    // Misskey sends no votersCount.
    file: "misskey",
    username: "9hx3mk",
    created: { options: ["ねこ", "いぬ"], counts: [4, 2], multiple: false, voters: null, expired: false },
    choices: [0],
    afterVote: { counts: [5, 2], voters: null },
    update: { file: "misskey/update-question", counts: [9, 5], voters: null },
  },
];

for (const c of CASES) {
  test(`${c.file}: a Question becomes a poll, alice's vote goes to its author, the origin's tallies come back`, async (t) => {
    const w = await startWorld(t);
    const actor = w.remote.actor(c.username);
    await aliceFollows(w, actor);
    const now = Date.now();
    const vars = { PUBLISHED: iso(now - 60_000), END: iso(now + 3600_000), CLOSED: iso(now - 1000), UNIX: String(Math.floor(now / 1000)), MS: String(now) };
    const create = fixture(w, `${c.file}/create-question`, vars);
    await deliverAndRun(w, actor, create);
    const st = await statusOf(w, create.object.id);
    assert.deepEqual(view(st.poll), c.created);
    assert.equal(st.poll.expires_at, new Date(vars.END).toISOString());
    assert.deepEqual([st.poll.voted, st.poll.own_votes], [false, []]);

    // alice votes: one Create(Note) per choice, to the author's own inbox, named after the option.
    const voted = await w.s.api(w.alice, "POST", `/api/v1/polls/${st.poll.id}/votes`, { choices: c.choices });
    assert.deepEqual({ counts: view(voted).counts, voters: voted.voters_count }, c.afterVote);
    await w.s.drainJobs();
    const votes = w.remote.received.filter((d) => d.body?.type === "Create");
    assert.deepEqual(
      votes.map((d) => [d.path, d.body.to, d.body.object.type, d.body.object.name, d.body.object.inReplyTo, d.body.object.attributedTo]),
      c.choices.map((i) => [new URL(actor.inbox).pathname, actor.id, "Note", c.created.options[i], create.object.id, `${w.s.url}/users/alice`]),
    );
    assert.match(votes[0].body.id, new RegExp(`^${w.s.url}/users/alice#votes/\\d+/activity$`));
    assert.equal(votes[0].body.object.id, votes[0].body.id.replace(/\/activity$/, ""));

    if (c.update) {
      // An Update without `updated` is not an edit: only the counts and the end move.
      await deliverAndRun(w, actor, fixture(w, c.update.file, vars));
      const after = (await statusOf(w, create.object.id)).poll;
      assert.deepEqual({ counts: view(after).counts, voters: after.voters_count, expired: after.expired }, { counts: c.update.counts, voters: c.update.voters, expired: true });
      assert.deepEqual([after.voted, after.own_votes], [true, c.choices]);
      // alice voted in it: she hears of its end (Mastodon checks five minutes after the end).
      advance(w.s, 6 * 60_000);
      await w.s.drainJobs();
      const notes = await w.s.api(w.alice, "GET", "/api/v1/notifications?types[]=poll");
      assert.deepEqual(notes.map((n: any) => [n.type, n.status.id, n.account.acct]), [["poll", st.id, `${c.username}@${w.remote.domain}`]]);
    } else {
      // A refresh on read: the first signed-in read of a remote poll fetches the Question again.
      const doc = fixture(w, `${c.file}/question`, vars);
      doc.oneOf[0].replies.totalItems = 6;
      doc.votersCount = 9;
      w.remote.serve(new URL(doc.id).pathname, doc);
      const fresh = await w.s.api(w.alice, "GET", `/api/v1/polls/${st.poll.id}`);
      assert.deepEqual({ counts: view(fresh).counts, voters: fresh.voters_count, own: fresh.own_votes }, { counts: [6, 2], voters: 9, own: c.choices });
      // Not again within the minute, nor for an anonymous reader.
      const fetches = () => w.remote.requests.filter((r) => r.method === "GET" && r.path === new URL(doc.id).pathname).length;
      const before = fetches();
      await w.s.api(w.alice, "GET", `/api/v1/polls/${st.poll.id}`);
      assert.equal(fetches(), before);
    }
  });
}

test("votes from Mastodon, GoToSocial, Akkoma and Misskey count in a local poll; repeats and strays do not", async (t) => {
  const w = await startWorld(t);
  const { s, remote, alice } = w;
  const local = await s.api(alice, "POST", "/api/v1/statuses", { status: "herons, egrets or storks?", poll: { options: ["Herons", "Egrets", "Storks"], expires_in: 3600 } });
  const vars = { STATUS: local.id, PUBLISHED: iso(Date.now()), CONTEXT: "1-1" };
  const voters = { mastodon: remote.actor("bob"), gotosocial: remote.actor("gts"), akkoma: remote.actor("akko"), misskey: remote.actor("9hx3mk") };
  for (const [software, actor] of Object.entries(voters)) await deliverAndRun(w, actor, fixture(w, `${software}/vote`, vars));
  const counts = async () => {
    const p = await s.api(alice, "GET", `/api/v1/polls/${local.poll.id}`);
    return { counts: p.options.map((o: any) => o.votes_count), voters: p.voters_count };
  };
  // Herons: Mastodon and Misskey; Egrets: GoToSocial; Storks: Akkoma.
  assert.deepEqual(await counts(), { counts: [2, 1, 1], voters: 4 });
  // Votes are not statuses.
  assert.equal((await s.api(alice, "GET", `/api/v1/statuses/${local.id}/context`)).descendants.length, 0);

  // The same vote again under a new activity id, and a second vote in a single-choice poll.
  const again = fixture(w, "mastodon/vote", vars);
  await deliverAndRun(w, voters.mastodon, { ...again, id: `${again.id}-again` });
  const second = fixture(w, "misskey/vote", vars);
  second.id += "-2";
  second.object = { ...second.object, id: `${second.object.id}-2`, name: "Storks" };
  await deliverAndRun(w, voters.misskey, second);
  // A reply named after no option is no vote.
  await deliverAndRun(w, voters.mastodon, {
    "@context": AS_CONTEXT,
    id: `${voters.mastodon.id}/statuses/77/activity`,
    type: "Create",
    actor: voters.mastodon.id,
    to: [PUBLIC],
    object: { id: `${voters.mastodon.id}/statuses/77`, type: "Note", name: "Pelicans", content: "<p>pelicans!</p>", attributedTo: voters.mastodon.id, inReplyTo: local.uri, to: [PUBLIC] },
  });
  assert.deepEqual(await counts(), { counts: [2, 1, 1], voters: 4 });

  // The batched Update(Question) reaches the voters three minutes after the first vote, with the tallies.
  await s.drainJobs();
  assert.equal(remote.received.filter((d) => d.body?.type === "Update").length, 0);
  advance(s, 3 * 60_000 + 1000);
  await s.drainJobs();
  const updates = remote.received.filter((d) => d.body?.type === "Update");
  assert.equal(updates.length, 1, "one shared inbox, one Update");
  const q = updates[0].body.object;
  assert.deepEqual([q.type, q.id, q.oneOf.map((o: any) => o.replies.totalItems), q.votersCount], ["Question", local.uri, [2, 1, 1], 4]);

  // After the end a vote changes nothing.
  advance(s, 3600_000);
  const late = fixture(w, "gotosocial/vote", vars);
  const r = await deliver(w, voters.gotosocial, { ...late, id: `${late.id}-late`, object: { ...late.object, id: `${late.object.id}-late`, name: "Storks" } }, "/users/alice/inbox");
  assert.equal(r.status, 202);
  await s.drainJobs();
  assert.deepEqual(await counts(), { counts: [2, 1, 1], voters: 4 });
});

test("an edit of a remote Question with new options drops the local votes and keeps its history", async (t) => {
  const w = await startWorld(t);
  const bob = w.remote.actor("bob");
  await aliceFollows(w, bob);
  const now = Date.now();
  const vars = { PUBLISHED: iso(now - 60_000), END: iso(now + 3600_000), CLOSED: iso(now), UNIX: "1", MS: "1" };
  const create = fixture(w, "mastodon/create-question", vars);
  await deliverAndRun(w, bob, create);
  const st = await statusOf(w, create.object.id);
  await w.s.api(w.alice, "POST", `/api/v1/polls/${st.poll.id}/votes`, { choices: [0] });
  const edited = { ...create.object, updated: iso(now), oneOf: [{ type: "Note", name: "Herons" }, { type: "Note", name: "Cranes" }] };
  await deliverAndRun(w, bob, { "@context": create["@context"], id: `${create.object.id}#updates/2`, type: "Update", actor: bob.id, to: create.to, cc: create.cc, object: edited });
  const after = (await statusOf(w, create.object.id)).poll;
  assert.deepEqual([view(after).options, view(after).counts, after.voted, after.own_votes], [["Herons", "Cranes"], [0, 0], false, []]);
  const history = await w.s.api(w.alice, "GET", `/api/v1/statuses/${st.id}/history`);
  assert.deepEqual(
    history.map((h: any) => h.poll.options.map((o: any) => o.title)),
    [["Herons", "Egrets", "Storks"], ["Herons", "Cranes"]],
  );
  // alice may vote again, in the new poll.
  assert.deepEqual((await w.s.api(w.alice, "POST", `/api/v1/polls/${st.poll.id}/votes`, { choices: [1] })).own_votes, [1]);
});

test("gotosocial: every Update of a status has the same id, and each new one still applies", async (t) => {
  const w = await startWorld(t);
  const gts = w.remote.actor("gts");
  await aliceFollows(w, gts);
  const now = Date.now();
  const vars = { PUBLISHED: iso(now - 60_000), END: iso(now + 3600_000), CLOSED: iso(now - 1000) };
  const create = fixture(w, "gotosocial/create-question", vars);
  await deliverAndRun(w, gts, create);
  // GoToSocial's id for any Update of the status: `<status>/activity#Update`.
  const open = fixture(w, "gotosocial/update-question", vars);
  delete open.object.closed;
  open.object.anyOf[0].replies.totalItems = 4;
  await deliverAndRun(w, gts, open);
  assert.deepEqual(view((await statusOf(w, create.object.id)).poll).counts, [4, 3, 1]);
  const closed = fixture(w, "gotosocial/update-question", vars);
  assert.equal(closed.id, open.id);
  await deliverAndRun(w, gts, closed);
  const poll = (await statusOf(w, create.object.id)).poll;
  assert.deepEqual([view(poll).counts, poll.expired], [[5, 3, 1], true]);
  // The very same delivery again is still a repeat.
  await deliverAndRun(w, gts, open);
  assert.deepEqual(view((await statusOf(w, create.object.id)).poll).counts, [5, 3, 1]);
});

test("`closed: true` (no date) ends a remote poll once: later updates saying so do not end it again", async (t) => {
  const w = await startWorld(t);
  const bob = w.remote.actor("bob");
  await aliceFollows(w, bob);
  const now = Date.now();
  const vars = { PUBLISHED: iso(now - 60_000), END: iso(now + 3600_000), CLOSED: iso(now), UNIX: "7", MS: "7" };
  const create = fixture(w, "mastodon/create-question", vars);
  await deliverAndRun(w, bob, create);
  const st = await statusOf(w, create.object.id);
  await w.s.api(w.alice, "POST", `/api/v1/polls/${st.poll.id}/votes`, { choices: [2] });
  const closing = (n: number) => {
    const u = fixture(w, "mastodon/update-question", vars);
    u.id = `${u.id}-${n}`;
    u.object.closed = true;
    return u;
  };
  await deliverAndRun(w, bob, closing(1));
  const ended = (await statusOf(w, create.object.id)).poll;
  assert.ok(Date.parse(ended.expires_at) < Date.parse(vars.END), "it ended when the update came");
  advance(w.s, 6 * 60_000);
  await w.s.drainJobs();
  await deliverAndRun(w, bob, closing(2));
  advance(w.s, 6 * 60_000);
  await w.s.drainJobs();
  const after = (await statusOf(w, create.object.id)).poll;
  assert.deepEqual([after.expired, after.expires_at], [true, ended.expires_at]);
  assert.equal((await w.s.api(w.alice, "GET", "/api/v1/notifications?types[]=poll")).length, 1);
});

// Hashtags between two real roost instances (CLI subprocesses on loopback, jobs running on their
// own, effects polled for): A serves alice's `featuredTags` collection and B reads it when it
// fetches her; her later Add / Remove of a Hashtag reach B; her tagged post reaches a B user who
// follows only the tag.
import assert from "node:assert/strict";
import { test } from "node:test";
import { eventually } from "../helpers/fake-remote.ts";
import { type Instance, startInstance } from "../helpers/instances.ts";

const DEADLINE_MS = 8000;

test("featured tags federate as the actor's featuredTags collection and Add/Remove; followed tags bring remote posts home", { timeout: 120_000 }, async (t) => {
  const [A, B] = await Promise.all([startInstance("tags-a"), startInstance("tags-b")]);
  t.after(() => Promise.all([A.stop(), B.stop()]));
  const [alice, bob, carol] = await Promise.all([A.user("alice"), B.user("bob"), B.user("carol")]);

  const until = async <T>(what: string, fn: () => Promise<T>): Promise<NonNullable<T>> => {
    try {
      return (await eventually(fn, DEADLINE_MS, what)) as NonNullable<T>;
    } catch (e) {
      const jobs = (i: Instance) => i.jobTrouble();
      throw new Error(`${(e as Error).message}\n  jobs on A: ${jobs(A)}\n  jobs on B: ${jobs(B)}`);
    }
  };

  // alice features two tags on A, one of them used in a public post first.
  await A.api(alice, "POST", "/api/v1/statuses", { status: "a #Heron at dawn" });
  await A.api(alice, "POST", "/api/v1/featured_tags", { name: "Heron" });
  await A.api(alice, "POST", "/api/v1/featured_tags", { name: "#egrets" });

  // A serves the collection as Mastodon does: an unordered Collection of Hashtag objects.
  const res = await fetch(`${A.url}/users/alice/collections/tags`, { headers: { accept: "application/activity+json" } });
  assert.equal(res.status, 200);
  const collection = await res.json();
  assert.equal(collection.id, `${A.url}/users/alice/collections/tags`);
  assert.equal(collection.type, "Collection");
  assert.equal(collection.totalItems, 2);
  assert.deepEqual(collection.items, [
    { type: "Hashtag", href: `${A.url}/@alice/tagged/heron`, name: "#Heron" },
    { type: "Hashtag", href: `${A.url}/@alice/tagged/egrets`, name: "#egrets" },
  ]);
  const actor = await (await fetch(`${A.url}/users/alice`, { headers: { accept: "application/activity+json" } })).json();
  assert.equal(actor.featuredTags, collection.id);

  // B fetches alice (a lookup) and reads her featured tags in a job.
  const aliceOnB = (await B.api(bob, "GET", `/api/v1/accounts/lookup?acct=alice@${A.domain}`)).id as string;
  const featuredOnB = async () =>
    (await B.api(null, "GET", `/api/v1/accounts/${aliceOnB}/featured_tags`)).map((f: any) => `${f.name} ${f.url}`).sort().join(", ");
  await until("alice's featured tags on B", async () =>
    (await featuredOnB()) === `Heron ${A.url}/@alice/tagged/heron, egrets ${A.url}/@alice/tagged/egrets` || undefined,
  );

  // bob follows alice (unlocked: accepted at once), so her activities reach B.
  await B.api(bob, "POST", `/api/v1/accounts/${aliceOnB}/follow`);
  await until("bob following alice", async () => (await A.api(alice, "GET", `/api/v1/accounts/${alice.id}`)).followers_count === 1 || undefined);

  // Featuring and unfeaturing on A are sent to B as Add / Remove of the Hashtag.
  await A.api(alice, "POST", "/api/v1/tags/Ibis/feature");
  await until("the Add on B", async () => (await featuredOnB()).includes("Ibis") || undefined);
  const [egrets] = (await A.api(alice, "GET", "/api/v1/featured_tags")).filter((f: any) => f.name === "egrets");
  await A.api(alice, "DELETE", `/api/v1/featured_tags/${egrets.id}`);
  await until("the Remove on B", async () => ((await featuredOnB()) === `Heron ${A.url}/@alice/tagged/heron, Ibis ${A.url}/@alice/tagged/ibis`) || undefined);

  // carol on B follows only the tag; alice's public post with it lands in carol's home.
  await B.api(carol, "POST", "/api/v1/tags/herons/follow");
  await A.api(alice, "POST", "/api/v1/statuses", { status: "two #herons fishing" });
  const post = await until("alice's tagged post in carol's home on B", async () =>
    (await B.api(carol, "GET", "/api/v1/timelines/home")).find((s: any) => s.content.includes("fishing")),
  );
  assert.equal(post.account.acct, `alice@${A.domain}`);
  assert.deepEqual(post.tags.map((x: any) => x.name), ["herons"]);
});

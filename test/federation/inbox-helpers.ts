// Inbox test helpers: a local server and a fake remote, fixtures of the interop corpus with
// their placeholders filled in, and deliveries signed by the fake remote's own code.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type FakeActor, type FakeRemote, type SignOptions, startFakeRemote } from "../helpers/fake-remote.ts";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.ts";

export interface World {
  s: TestServer;
  remote: FakeRemote;
  alice: TestUser;
}

/** A test server with the local user alice, and a fake remote server; both closed after the test. */
export async function startWorld(t: { after: (fn: () => Promise<void>) => void }): Promise<World> {
  const s = await startTestServer();
  const remote = await startFakeRemote();
  t.after(async () => {
    await s.close();
    await remote.close();
  });
  return { s, remote, alice: await s.user("alice") };
}

const FIXTURES = join(import.meta.dirname, "../fixtures/remote");

/**
 * `test/fixtures/remote/<software>/<name>.json` with `https://REMOTE` replaced by the fake
 * remote's origin, `https://LOCAL` by the test server's, `LOCALDOMAIN` by its host[:port], and
 * `{{KEY}}` by `vars[KEY]`.
 */
export function fixture(w: World, path: string, vars: Record<string, string> = {}): Record<string, any> {
  let text = readFileSync(join(FIXTURES, `${path}.json`), "utf8");
  text = text.replaceAll("https://REMOTE", w.remote.origin).replaceAll("https://LOCAL", w.s.url).replaceAll("LOCALDOMAIN", new URL(w.s.url).host);
  text = text.replace(/\{\{(\w+)\}\}/g, (_, k: string) => {
    if (!(k in vars)) throw new Error(`fixture ${path}: no value for {{${k}}}`);
    return vars[k];
  });
  return JSON.parse(text);
}

/** POSTs `activity` to an inbox of the test server, signed by `actor`. */
export function deliver(
  w: World,
  actor: FakeActor,
  activity: Record<string, unknown>,
  inbox = "/inbox",
  opts: SignOptions = {},
): Promise<{ status: number; text: string }> {
  return w.remote.post(w.s.url + inbox, activity, actor, opts);
}

/** Delivers, expects 202, and runs the jobs it caused. */
export async function deliverAndRun(w: World, actor: FakeActor, activity: Record<string, unknown>, inbox = "/inbox"): Promise<void> {
  const r = await deliver(w, actor, activity, inbox);
  if (r.status !== 202) throw new Error(`inbox answered ${r.status}: ${r.text}`);
  await w.s.drainJobs();
}

let seq = 0;
/** A fresh activity id on the actor's server. */
export const activityId = (actor: FakeActor, kind = "activities") => `${actor.id}/${kind}/${Date.now()}-${++seq}`;

export const AS_CONTEXT = "https://www.w3.org/ns/activitystreams";
export const PUBLIC = "https://www.w3.org/ns/activitystreams#Public";

/** The local account uri of a test user. */
export const localUri = (w: World, u: TestUser) => `${w.s.url}/users/${u.username}`;

/** The local id of a remote account (resolved as a client's lookup would). */
export async function accountIdOf(w: World, actor: FakeActor): Promise<string> {
  const a = await w.s.api(w.alice, "GET", `/api/v1/accounts/lookup?acct=${actor.username}@${w.remote.domain}`);
  return a.id;
}

/** alice's relationship to a remote actor, through the client API. */
export async function relationship(w: World, actor: FakeActor): Promise<Record<string, any>> {
  const id = await accountIdOf(w, actor);
  const [rel] = await w.s.api(w.alice, "GET", `/api/v1/accounts/relationships?id[]=${id}`);
  return rel;
}

/** alice's notifications as [type, acct] pairs, newest first. */
export async function notifications(w: World): Promise<[string, string][]> {
  const list = await w.s.api(w.alice, "GET", "/api/v1/notifications");
  return list.map((n: { type: string; account: { acct: string } }) => [n.type, n.account.acct]);
}

/** Deliveries the fake remote got of one activity type. */
export const received = (w: World, type: string) => w.remote.received.filter((d) => d.body?.type === type).map((d) => d.body);

/** A post by alice; returns its id. */
export async function alicePosts(w: World, status = "herons", extra: Record<string, unknown> = {}): Promise<string> {
  return (await w.s.api(w.alice, "POST", "/api/v1/statuses", { status, ...extra })).id;
}

/** alice asks to follow the remote actor; returns the id of the Follow she sent. */
export async function aliceFollows(w: World, actor: FakeActor): Promise<string> {
  await w.s.api(w.alice, "POST", `/api/v1/accounts/${await accountIdOf(w, actor)}/follow`);
  await w.s.drainJobs();
  const sent = received(w, "Follow").filter((f) => f.object === actor.id);
  if (sent.length === 0) throw new Error("no Follow was delivered");
  return sent[sent.length - 1].id;
}

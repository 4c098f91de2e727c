// Helpers for the remote-status tests: a test server, a fake remote with one author already
// resolved through resolveAccountByUri, Note documents on the remote, and local follows of
// remote accounts accepted the way the inbox accepts them.
import assert from "node:assert/strict";
import { resolveAccountByUri } from "../../src/federation/resolve/accounts.ts";
import { parseApNote } from "../../src/federation/parse/note.ts";
import { createRemoteStatus, type RemoteStatusContext } from "../../src/federation/remote-statuses.ts";
import { authorizeFollowRequest, followAccount } from "../../src/services/follows.ts";
import type { Account } from "../../src/storage/accounts.ts";
import type { Status } from "../../src/storage/statuses.ts";
import { type FakeActor, type FakeRemote, startFakeRemote } from "../helpers/fake-remote.ts";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.ts";

export const PUBLIC = "https://www.w3.org/ns/activitystreams#Public";
export type Doc = Record<string, unknown>;

export interface World {
  s: TestServer;
  remote: FakeRemote;
  rita: FakeActor;
  /** rita's stored account. */
  author: Account;
}

export async function startWorld(t: { after: (fn: () => Promise<void>) => void }): Promise<World> {
  const s = await startTestServer();
  t.after(() => s.close());
  const remote = await startFakeRemote();
  t.after(() => remote.close());
  const rita = remote.actor("rita");
  return { s, remote, rita, author: await remoteAccountOf(s, rita) };
}

export async function remoteAccountOf(s: TestServer, actor: FakeActor): Promise<Account> {
  const account = await resolveAccountByUri(s.app, actor.id);
  assert.ok(account, `${actor.id} resolves`);
  return account;
}

let seq = 0;

/** A Note by `actor` on its server; public unless `extra` says otherwise. Seconds precision, like Mastodon. */
export function noteDoc(actor: FakeActor, extra: Doc = {}): Doc {
  const n = `${Date.now()}${++seq}`;
  const origin = new URL(actor.id).origin;
  return {
    "@context": ["https://www.w3.org/ns/activitystreams", { sensitive: "as:sensitive", toot: "http://joinmastodon.org/ns#" }],
    id: `${actor.id}/statuses/${n}`,
    type: "Note",
    attributedTo: actor.id,
    url: `${origin}/@${actor.username}/${n}`,
    content: `<p>post ${n}</p>`,
    published: new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000).toISOString(),
    to: [PUBLIC],
    cc: [actor.followers],
    ...extra,
  };
}

/** Parses and stores a note the way the inbox does; `author` defaults to rita. */
export function store(w: World, doc: Doc, ctx?: RemoteStatusContext, author = w.author): Promise<Status | undefined> {
  return createRemoteStatus(w.s.app, parseApNote(doc), author, ctx);
}

export async function stored(w: World, doc: Doc, ctx?: RemoteStatusContext, author = w.author): Promise<Status> {
  const status = await store(w, doc, ctx, author);
  assert.ok(status, `${doc.id as string} is stored`);
  return status;
}

/** A local user follows a remote account: the request, then the remote's Accept as the inbox applies it. */
export function followRemote(w: World, local: TestUser, target = w.author): void {
  followAccount(w.s.app, local.account, target, {});
  authorizeFollowRequest(w.s.app, target, local.id);
}

/** A Mention tag for a local user. */
export const mentionOf = (w: World, u: TestUser) => ({ type: "Mention", href: u.account.uri, name: `@${u.username}@${w.s.app.config.domain}` });

/** GET as `who`: the status code and body. */
export async function view(w: World, who: TestUser | null, statusId: string): Promise<{ status: number; body: any }> {
  const r = await w.s.req(who, "GET", `/api/v1/statuses/${statusId}`);
  return { status: r.status, body: r.body };
}

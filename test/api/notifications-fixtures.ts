// Unit-level fixtures for the notification rules: statuses and relationship rows written
// with the storage layer, because these tests exercise notify() itself (the HTTP scenarios
// in notifications-scenarios.test.ts go through the real endpoints).
import type { App } from "../../src/app.ts";
import { stmt } from "../../src/db/db.ts";
import type { Id } from "../../src/lib/ids.ts";
import { localStatusUri, localStatusUrl } from "../../src/lib/urls.ts";
import { insertAccount, type Account } from "../../src/storage/accounts.ts";
import { findStatusById, insertStatus, type Status, type Visibility } from "../../src/storage/statuses.ts";

interface Who {
  id: Id;
  username: string;
}

export function post(
  app: App,
  author: Who,
  o: { visibility?: Visibility; replyTo?: Status; mentions?: { id: Id; silent?: boolean }[]; language?: string } = {},
): Status {
  const id = app.ids.next();
  const now = app.now();
  let conversationId = o.replyTo?.conversationId ?? null;
  if (!conversationId) {
    conversationId = app.ids.next();
    stmt(app.db, "INSERT INTO conversations (id, created_at) VALUES (?, ?)").run(BigInt(conversationId), now);
  }
  insertStatus(app.db, {
    id,
    accountId: author.id,
    local: true,
    uri: localStatusUri(app.baseUrl, author.username, id),
    url: localStatusUrl(app.baseUrl, author.username, id),
    text: "hello",
    content: "<p>hello</p>",
    spoilerText: "",
    sensitive: false,
    visibility: o.visibility ?? "public",
    language: o.language ?? null,
    inReplyToId: o.replyTo?.id ?? null,
    inReplyToAccountId: o.replyTo?.accountId ?? null,
    inReplyToUri: o.replyTo?.uri ?? null,
    reblogOfId: null,
    conversationId,
    applicationId: null,
    createdAt: now,
  });
  for (const m of o.mentions ?? []) {
    stmt(app.db, "INSERT INTO mentions (id, status_id, account_id, silent, created_at) VALUES (?, ?, ?, ?, ?)").run(
      BigInt(app.ids.next()),
      BigInt(id),
      BigInt(m.id),
      m.silent ? 1 : 0,
      now,
    );
  }
  return findStatusById(app.db, id)!;
}

export function boost(app: App, who: Who, original: Status): Status {
  const id = app.ids.next();
  insertStatus(app.db, {
    id,
    accountId: who.id,
    local: true,
    uri: `${localStatusUri(app.baseUrl, who.username, id)}/activity`,
    url: null,
    text: "",
    content: "",
    spoilerText: "",
    sensitive: false,
    visibility: "public",
    language: null,
    inReplyToId: null,
    inReplyToAccountId: null,
    inReplyToUri: null,
    reblogOfId: original.id,
    conversationId: null,
    applicationId: null,
    createdAt: app.now(),
  });
  return findStatusById(app.db, id)!;
}

const run = (app: App, sql: string, ...args: unknown[]) => stmt(app.db, sql).run(...args);
const big = (id: Id) => BigInt(id);

export function favourite(app: App, who: Who, s: Status): void {
  run(app, "INSERT INTO favourites (id, account_id, status_id, created_at) VALUES (?, ?, ?, ?)", big(app.ids.next()), big(who.id), big(s.id), app.now());
}
export function unfavourite(app: App, who: Who, s: Status): void {
  run(app, "DELETE FROM favourites WHERE account_id = ? AND status_id = ?", big(who.id), big(s.id));
}
export function deleteStatus(app: App, s: Status): void {
  run(app, "DELETE FROM statuses WHERE id = ?", big(s.id));
}

export function follow(app: App, a: Who, b: Who, o: { notify?: boolean; languages?: string[] } = {}): void {
  const id = app.ids.next();
  run(
    app,
    `INSERT INTO follows (id, account_id, target_account_id, notify, languages, uri, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    big(id), big(a.id), big(b.id), o.notify ? 1 : 0, o.languages ? JSON.stringify(o.languages) : null, `${app.baseUrl}/follows/${id}`, app.now(), app.now(),
  );
}
export function unfollow(app: App, a: Who, b: Who): void {
  run(app, "DELETE FROM follows WHERE account_id = ? AND target_account_id = ?", big(a.id), big(b.id));
}
export function requestFollow(app: App, a: Who, b: Who): void {
  const id = app.ids.next();
  run(
    app,
    `INSERT INTO follow_requests (id, account_id, target_account_id, uri, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`,
    big(id), big(a.id), big(b.id), `${app.baseUrl}/follows/${id}`, app.now(), app.now(),
  );
}
export function withdrawRequest(app: App, a: Who, b: Who): void {
  run(app, "DELETE FROM follow_requests WHERE account_id = ? AND target_account_id = ?", big(a.id), big(b.id));
}

export function block(app: App, a: Who, b: Who): void {
  const id = app.ids.next();
  run(app, "INSERT INTO blocks (id, account_id, target_account_id, uri, created_at) VALUES (?, ?, ?, ?, ?)", big(id), big(a.id), big(b.id), `${app.baseUrl}/blocks/${id}`, app.now());
}
export function mute(app: App, a: Who, b: Who, o: { hideNotifications?: boolean; expiresAt?: number | null } = {}): void {
  run(
    app,
    `INSERT INTO mutes (id, account_id, target_account_id, hide_notifications, expires_at, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
    big(app.ids.next()), big(a.id), big(b.id), o.hideNotifications === false ? 0 : 1, o.expiresAt ?? null, app.now(), app.now(),
  );
}
export function domainBlock(app: App, a: Who, domain: string): void {
  run(app, "INSERT INTO account_domain_blocks (id, account_id, domain, created_at) VALUES (?, ?, ?, ?)", big(app.ids.next()), big(a.id), domain, app.now());
}
export function muteConversation(app: App, a: Who, s: Status): void {
  run(app, "INSERT INTO conversation_mutes (account_id, conversation_id) VALUES (?, ?)", big(a.id), big(s.conversationId!));
}
export function clearRelationships(app: App): void {
  for (const t of ["follows", "follow_requests", "blocks", "mutes", "account_domain_blocks", "conversation_mutes", "notifications"]) {
    app.db.exec(`DELETE FROM ${t}`);
  }
}

export function remoteAccount(app: App, username: string, domain: string): Account {
  const id = app.ids.next();
  const uri = `https://${domain}/users/${username}`;
  insertAccount(app.db, { id, username, domain, uri, url: `https://${domain}/@${username}`, createdAt: app.now(), updatedAt: app.now() });
  return { id, username, domain } as Account;
}

import type { App } from "../app.ts";
import { notFound } from "../errors.ts";
import { type Id, parseId } from "../lib/ids.ts";
import {
  type AccountConversation,
  type ConversationPage,
  deleteAccountConversation,
  findAccountConversation,
  listAccountConversations,
  setAccountConversationUnread,
} from "../storage/account-conversations.ts";
import { publishConversation } from "./stream-events.ts";

export type { AccountConversation, ConversationPage };

/** The viewer's direct conversations, newest last status first (cursor: last status id). */
export function listConversations(app: App, viewerId: Id, page: ConversationPage): AccountConversation[] {
  return listAccountConversations(app.db, viewerId, page);
}

function requireOwnConversation(app: App, viewerId: Id, rawId: unknown): AccountConversation {
  const id = parseId(rawId);
  const c = id ? findAccountConversation(app.db, viewerId, id) : undefined;
  if (!c) throw notFound();
  return c;
}

export function markConversation(app: App, viewerId: Id, rawId: unknown, unread: boolean): AccountConversation {
  const c = requireOwnConversation(app, viewerId, rawId);
  setAccountConversationUnread(app.db, c.id, unread);
  // Mastodon pushes a conversation on every change of the row (after_commit).
  publishConversation(app, viewerId, c.id);
  return { ...c, unread };
}

/** One of the viewer's conversations by id, or undefined (the live streams render it). */
export function findConversation(app: App, viewerId: Id, id: Id): AccountConversation | undefined {
  return findAccountConversation(app.db, viewerId, id);
}

/** Removes the conversation from the viewer's list only; a later message brings it back. */
export function removeConversation(app: App, viewerId: Id, rawId: unknown): void {
  const c = requireOwnConversation(app, viewerId, rawId);
  deleteAccountConversation(app.db, c.id);
}

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
  return { ...c, unread };
}

/** Removes the conversation from the viewer's list only; a later message brings it back. */
export function removeConversation(app: App, viewerId: Id, rawId: unknown): void {
  const c = requireOwnConversation(app, viewerId, rawId);
  deleteAccountConversation(app.db, c.id);
}

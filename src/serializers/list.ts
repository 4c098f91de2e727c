import type { List } from "../storage/lists.ts";

// https://docs.joinmastodon.org/entities/List/
export interface ApiList {
  id: string;
  title: string;
  replies_policy: string;
  exclusive: boolean;
}

export function toApiList(l: List): ApiList {
  return { id: l.id, title: l.title, replies_policy: l.repliesPolicy, exclusive: l.exclusive };
}

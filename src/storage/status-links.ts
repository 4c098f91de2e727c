import { type DB, type Row, stmt, str, strOrNull, idListJson } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";

/** What a Status entity shows of a mentioned account. */
export interface MentionedAccount {
  id: Id;
  username: string;
  domain: string | null;
  url: string | null;
  uri: string;
}

export interface StatusLinks {
  /** Shown (not silent) mentions, in mention order. */
  mentions: Map<Id, MentionedAccount[]>;
  /** Normalised tag names, sorted. */
  tags: Map<Id, string[]>;
}

/**
 * Mentions and tags of a page of statuses in one statement. Each branch walks the id list
 * and probes an index once per id (CROSS JOIN keeps that order); only the columns the entity
 * shows are read.
 */
export function findStatusLinks(db: DB, statusIds: Iterable<Id>): StatusLinks {
  const out: StatusLinks = { mentions: new Map(), tags: new Map() };
  const ids = idListJson(new Set(statusIds));
  if (ids === "[]") return out;
  const rows = stmt(
    db,
    `SELECT 'm' AS k, m.status_id AS sid, m.id AS ord, a.id AS aid, a.username, a.domain, a.url, a.uri
       FROM json_each(@ids) j CROSS JOIN mentions m ON m.status_id = j.value JOIN accounts a ON a.id = m.account_id
       WHERE m.silent = 0
     UNION ALL
     SELECT 't', st.status_id, t.name, NULL, NULL, NULL, NULL, NULL
       FROM json_each(@ids) j CROSS JOIN statuses_tags st ON st.status_id = j.value JOIN tags t ON t.id = st.tag_id
     ORDER BY k, ord`,
  ).all({ ids }) as Row[];
  for (const r of rows) {
    const sid = str(r.sid);
    if (r.k === "m") {
      const account = { id: str(r.aid), username: r.username as string, domain: strOrNull(r.domain), url: strOrNull(r.url), uri: r.uri as string };
      push(out.mentions, sid, account);
    } else push(out.tags, sid, r.ord as string);
  }
  return out;
}

function push<T>(m: Map<Id, T[]>, key: Id, v: T): void {
  const list = m.get(key);
  if (list) list.push(v);
  else m.set(key, [v]);
}

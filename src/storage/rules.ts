import { type DB, type Row, stmt, str, num } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";

/** A server rule shown at sign-up and in reports. */
export interface Rule {
  id: Id;
  text: string;
  hint: string;
  position: number;
  createdAt: number;
}

function rowToRule(r: Row): Rule {
  return { id: str(r.id), text: r.text as string, hint: r.hint as string, position: num(r.position), createdAt: num(r.created_at) };
}

/** Rules in display order. */
export function listRules(db: DB): Rule[] {
  return (stmt(db, "SELECT * FROM rules ORDER BY position, id").all() as Row[]).map(rowToRule);
}

export function findRuleById(db: DB, id: Id): Rule | undefined {
  const r = stmt(db, "SELECT * FROM rules WHERE id = ?").get(BigInt(id)) as Row | undefined;
  return r && rowToRule(r);
}

export function insertRule(db: DB, rule: Rule): void {
  stmt(db, "INSERT INTO rules (id, text, hint, position, created_at) VALUES (@id, @text, @hint, @position, @createdAt)").run({
    ...rule,
    id: BigInt(rule.id),
  });
}

/** The position after the last rule (new rules go to the end). */
export function nextRulePosition(db: DB): number {
  const r = stmt(db, "SELECT max(position) AS m FROM rules").get() as Row;
  return r.m === null ? 0 : num(r.m) + 1;
}

export function deleteRule(db: DB, id: Id): void {
  stmt(db, "DELETE FROM rules WHERE id = ?").run(BigInt(id));
}

import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import { Validation } from "../lib/validation.ts";
import { type Rule, findRuleById, insertRule, listRules, nextRulePosition } from "../storage/rules.ts";

export interface CreateRuleInput {
  text: string;
  hint?: string;
  /** Display position; by default after the last rule. */
  position?: number;
}

/** Adds a server rule (admin API, CLI, tests). 422 when the text is blank. */
export function createRule(app: App, input: CreateRuleInput): Rule {
  const text = (input.text ?? "").trim();
  const v = new Validation();
  if (text === "") v.add("text", "ERR_BLANK", "can't be blank");
  v.throwIfAny();
  const id = app.ids.next();
  tx(app.db, () => {
    insertRule(app.db, {
      id,
      text,
      hint: (input.hint ?? "").trim(),
      position: input.position ?? nextRulePosition(app.db),
      createdAt: app.now(),
    });
  });
  return findRuleById(app.db, id)!;
}

/** The rules in display order. */
export function getRules(app: App): Rule[] {
  return listRules(app.db);
}

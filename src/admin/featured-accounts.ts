// Accounts the admins feature in follow suggestions (Mastodon's "bootstrap_timeline_accounts"
// server setting, shown as source `featured`). Changing it is Mastodon's manage_settings; each
// change is audit-logged (Mastodon logs no setting changes; roost logs every admin action).
import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import { type Account, findAccountById, findAccountsByIds } from "../storage/accounts.ts";
import { listFeaturedIds, setFeatured } from "../storage/suggestions.ts";
import { type Actor, requireCan } from "./actor.ts";
import { audit } from "./audit.ts";

const target = (a: Account) => ({ type: "Account", id: a.id, name: a.domain === null ? a.username : `${a.username}@${a.domain}` });

function change(app: App, actor: Actor, account: Account, featured: boolean): Account {
  requireCan(actor, "manage_settings");
  tx(app.db, () => {
    if (setFeatured(app.db, account.id, featured, app.now()))
      audit(app, actor, featured ? "feature" : "unfeature", target(account), { featured: [!featured, featured] });
  });
  return findAccountById(app.db, account.id)!;
}

export const featureAccount = (app: App, actor: Actor, account: Account) => change(app, actor, account, true);
export const unfeatureAccount = (app: App, actor: Actor, account: Account) => change(app, actor, account, false);

/** The featured accounts, in the order they were featured. */
export function listFeaturedAccounts(app: App, actor: Actor): Account[] {
  requireCan(actor, "manage_settings");
  const ids = listFeaturedIds(app.db);
  const found = findAccountsByIds(app.db, ids);
  return ids.flatMap((id) => found.get(id) ?? []);
}

// https://docs.joinmastodon.org/entities/AccountWarning/ (entities-other.md § AccountWarning)
import type { App } from "../app.ts";
import { isoTime } from "../lib/iso-time.ts";
import type { Account } from "../storage/accounts.ts";
import type { AccountWarning, WarningAction } from "../storage/account-warnings.ts";
import { type ApiAccount, toApiAccount } from "./account.ts";

export interface ApiAccountWarning {
  id: string;
  action: WarningAction;
  text: string;
  status_ids: string[] | null;
  target_account: ApiAccount;
  /** Appeals are not implemented: always null. */
  appeal: null;
  created_at: string;
}

export function toApiAccountWarning(app: App, w: AccountWarning, target: Account): ApiAccountWarning {
  return {
    id: w.id,
    action: w.action,
    text: w.text,
    status_ids: w.statusIds,
    target_account: toApiAccount(app, target),
    appeal: null,
    created_at: isoTime(w.createdAt),
  };
}

// The domain types that http/ names (a route never imports storage/, CONVENTIONS.md "Who
// imports whom"). They are defined beside their rows in storage/; services return them.
export type { Account } from "../storage/accounts.ts";
export type { Status } from "../storage/statuses.ts";
export type { Token } from "../storage/tokens.ts";
export type { User } from "../storage/users.ts";

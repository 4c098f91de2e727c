// https://docs.joinmastodon.org/methods/lists/
import { getRouterParam } from "h3";
import type { App } from "../../../../app.ts";
import type { Router } from "../../../../http/router.ts";
import { requireUser } from "../../../auth.ts";
import { setLinkHeader } from "../../../pagination.ts";
import { readAppParams, type Params } from "../../../params.ts";
import { parseId } from "../../../../lib/ids.ts";
import {
  addListAccounts,
  changeList,
  createList,
  type ListInput,
  listMembers,
  listsOf,
  removeList,
  removeListAccounts,
  requireOwnList,
} from "../../../../services/lists.ts";
import { toApiList } from "../../../../serializers/list.ts";
import { toApiAccounts } from "../../../../serializers/account.ts";

const READ = ["read:lists"];
const WRITE = ["write:lists"];

function listInput(p: Params): ListInput {
  return { title: p.str("title"), repliesPolicy: p.str("replies_policy"), exclusive: p.bool("exclusive") };
}

function accountIds(p: Params): string[] {
  return p.strArray("account_ids", { allowScalar: true }) ?? [];
}

export function registerListsRoutes(app: App, r: Router): void {
  // Not paginated: a user has at most 50 lists.
  r.get("/api/v1/lists", (event) => {
    const viewer = requireUser(app, event, ...READ);
    return listsOf(app, viewer.account.id).map(toApiList);
  });

  r.post("/api/v1/lists", async (event) => {
    const viewer = requireUser(app, event, ...WRITE);
    const p = await readAppParams(app, event);
    return toApiList(createList(app, viewer.account.id, listInput(p)));
  });

  r.get("/api/v1/lists/:id", (event) => {
    const viewer = requireUser(app, event, ...READ);
    return toApiList(requireOwnList(app, viewer.account.id, getRouterParam(event, "id")));
  });

  r.put("/api/v1/lists/:id", async (event) => {
    const viewer = requireUser(app, event, ...WRITE);
    const p = await readAppParams(app, event);
    return toApiList(changeList(app, viewer.account.id, getRouterParam(event, "id"), listInput(p)));
  });

  r.delete("/api/v1/lists/:id", (event) => {
    const viewer = requireUser(app, event, ...WRITE);
    removeList(app, viewer.account.id, getRouterParam(event, "id"));
    return {};
  });

  // Paged by the hidden membership id (40/80, prev since_id); limit=0 returns every member without Link.
  r.get("/api/v1/lists/:id/accounts", async (event) => {
    const viewer = requireUser(app, event, ...READ);
    const p = await readAppParams(app, event);
    const raw = p.int("limit");
    const limit = raw === undefined ? 40 : Math.min(Math.abs(raw), 80);
    const all = raw === 0;
    const rows = listMembers(app, viewer.account.id, getRouterParam(event, "id"), {
      limit: all ? null : limit,
      maxId: parseId(p.str("max_id")),
      sinceId: parseId(p.str("since_id")),
    });
    if (!all) setLinkHeader(app, event, p, { cursors: rows.map((m) => m.cursor), limit, prevParam: "since_id" });
    return toApiAccounts(app, rows.map((m) => m.account));
  });

  r.post("/api/v1/lists/:id/accounts", async (event) => {
    const viewer = requireUser(app, event, ...WRITE);
    const p = await readAppParams(app, event);
    addListAccounts(app, viewer.account.id, getRouterParam(event, "id"), accountIds(p));
    return {};
  });

  r.delete("/api/v1/lists/:id/accounts", async (event) => {
    const viewer = requireUser(app, event, ...WRITE);
    const p = await readAppParams(app, event);
    removeListAccounts(app, viewer.account.id, getRouterParam(event, "id"), accountIds(p));
    return {};
  });
}

// https://docs.joinmastodon.org/methods/filters/#v1 (endpoints-timelines.md §8): deprecated,
// one V1::Filter per keyword of the v2 filters.
import { getRouterParam, type H3Event } from "h3";
import type { App } from "../../../../app.ts";
import type { Router } from "../../../../http/router.ts";
import { requireUser } from "../../../auth.ts";
import { readAppParams, type Params } from "../../../params.ts";
import { expiresInParam } from "../v2/filters.ts";
import { changeV1Filter, createV1Filter, getV1Filter, removeV1Filter, v1FiltersOf, type V1FilterInput } from "../../../../services/filters-v1.ts";
import { toApiV1Filter } from "../../../../serializers/filter.ts";

const READ = ["read:filters"];
const WRITE = ["write:filters"];

/** Mastodon 4.4 marks v1 filters deprecated since 4.0 (conventions.md §5). */
function deprecated(event: H3Event): void {
  event.res.headers.set("deprecation", "@1668384000");
}

function v1Input(p: Params): V1FilterInput {
  return {
    phrase: p.str("phrase"),
    context: p.strArray("context"),
    irreversible: p.bool("irreversible"),
    wholeWord: p.bool("whole_word"),
    expiresIn: expiresInParam(p),
  };
}

export function registerFiltersV1Routes(app: App, r: Router): void {
  r.get("/api/v1/filters", (event) => {
    const viewer = requireUser(app, event, ...READ);
    deprecated(event);
    return v1FiltersOf(app, viewer.account.id).map((f) => toApiV1Filter(f.keyword, f.filter));
  });

  r.post("/api/v1/filters", async (event) => {
    const viewer = requireUser(app, event, ...WRITE);
    deprecated(event);
    const p = await readAppParams(app, event);
    const f = createV1Filter(app, viewer.account.id, v1Input(p));
    return toApiV1Filter(f.keyword, f.filter);
  });

  r.get("/api/v1/filters/:id", (event) => {
    const viewer = requireUser(app, event, ...READ);
    deprecated(event);
    const f = getV1Filter(app, viewer.account.id, getRouterParam(event, "id"));
    return toApiV1Filter(f.keyword, f.filter);
  });

  r.put("/api/v1/filters/:id", async (event) => {
    const viewer = requireUser(app, event, ...WRITE);
    deprecated(event);
    const p = await readAppParams(app, event);
    const f = changeV1Filter(app, viewer.account.id, getRouterParam(event, "id"), v1Input(p));
    return toApiV1Filter(f.keyword, f.filter);
  });

  r.delete("/api/v1/filters/:id", (event) => {
    const viewer = requireUser(app, event, ...WRITE);
    deprecated(event);
    removeV1Filter(app, viewer.account.id, getRouterParam(event, "id"));
    return {};
  });
}

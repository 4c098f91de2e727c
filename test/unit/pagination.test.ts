import { test } from "node:test";
import assert from "node:assert/strict";
import { H3 } from "h3";
import { pageParams, setLinkHeader } from "../../src/http/pagination.ts";
import { readParams } from "../../src/http/params.ts";
import type { App } from "../../src/app.ts";

const app = { baseUrl: "https://roost.example" } as App;

function pager(cursors: string[], opts: { nextAlways?: boolean; prevParam?: "min_id" | "since_id" } = {}) {
  const h3 = new H3();
  h3.get("/api/v1/things", async (event) => {
    const p = await readParams(event, { json: 1024, multipart: 1024 });
    const page = pageParams(p, 20, 40);
    const slice = cursors.slice(0, page.limit);
    setLinkHeader(app, event, p, { cursors: slice, limit: page.limit, keep: ["only_media", "types"], ...opts });
    return { page, slice };
  });
  return h3;
}

test("limit defaults, caps and takes the absolute value", async () => {
  const h3 = pager([]);
  const get = async (q: string) => (await (await h3.request(`http://x/api/v1/things${q}`)).json()).page;
  assert.equal((await get("")).limit, 20);
  assert.equal((await get("?limit=500")).limit, 40);
  assert.equal((await get("?limit=-5")).limit, 5);
  assert.equal((await get("?limit=abc")).limit, 0);
  const p = await get("?max_id=123&since_id=abc&min_id=99999999999999999999");
  assert.equal(p.maxId, "123");
  assert.equal(p.sinceId, undefined);
  assert.equal(p.minId, undefined);
});

test("Link header: next with max_id of the last item, prev with min_id of the first, filters kept", async () => {
  const h3 = pager(["30", "20", "10"]);
  const r = await h3.request("http://x/api/v1/things?limit=3&only_media=true&types[]=mention&unrelated=1");
  assert.equal(
    r.headers.get("link"),
    '<https://roost.example/api/v1/things?limit=3&only_media=true&types[]=mention&max_id=10>; rel="next", ' +
      '<https://roost.example/api/v1/things?limit=3&only_media=true&types[]=mention&min_id=30>; rel="prev"',
  );
});

test("Link header: next omitted for a short page unless nextAlways; header omitted for an empty page", async () => {
  const short = await pager(["30", "20"]).request("http://x/api/v1/things?limit=3");
  assert.equal(short.headers.get("link"), '<https://roost.example/api/v1/things?limit=3&min_id=30>; rel="prev"');
  const always = await pager(["30", "20"], { nextAlways: true, prevParam: "since_id" }).request("http://x/api/v1/things?limit=3");
  assert.equal(
    always.headers.get("link"),
    '<https://roost.example/api/v1/things?limit=3&max_id=20>; rel="next", <https://roost.example/api/v1/things?limit=3&since_id=30>; rel="prev"',
  );
  const empty = await pager([]).request("http://x/api/v1/things");
  assert.equal(empty.headers.get("link"), null);
});

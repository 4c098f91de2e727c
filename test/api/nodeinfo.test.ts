import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Ajv } from "ajv";
import { startTestServer } from "../helpers/server.ts";
import { insertStatus } from "../../src/storage/statuses.ts";
import { ROOST_VERSION } from "../../src/version.ts";

const fixture = (p: string) => fileURLToPath(new URL(p, import.meta.url));
const SCHEMA_COPY = fixture("../fixtures/nodeinfo-2.0.schema.json");
const SCHEMA_SPEC = fixture("../../../shared/spec/protocols/nodeinfo-2.0.schema.json");
const DAY = 86_400_000;

/**
 * The official schema is draft-04 (`id`, draft-04 `$schema`), which Ajv 8 does not load. None of
 * the draft-04-only semantics (boolean exclusiveMinimum/Maximum) are used by it, so it is checked
 * as a current-draft schema without the two draft-04 identifiers.
 */
function nodeInfoValidator() {
  const { $schema: _s, id: _id, ...schema } = JSON.parse(readFileSync(SCHEMA_COPY, "utf8"));
  assert.equal(JSON.stringify(schema).includes("exclusiveM"), false);
  return new Ajv({ strict: false, allErrors: true }).compile(schema);
}

test("the schema copy in test/fixtures is the spec's verbatim copy", { skip: !existsSync(SCHEMA_SPEC) }, () => {
  assert.deepEqual(JSON.parse(readFileSync(SCHEMA_COPY, "utf8")), JSON.parse(readFileSync(SCHEMA_SPEC, "utf8")));
});

test("the validator rejects what the schema forbids", () => {
  const validate = nodeInfoValidator();
  const ok = {
    version: "2.0",
    software: { name: "roost", version: "0.1.0" },
    protocols: ["activitypub"],
    services: { inbound: [], outbound: [] },
    openRegistrations: true,
    usage: { users: {} },
    metadata: {},
  };
  assert.equal(validate(ok), true);
  assert.equal(validate({ ...ok, extra: 1 }), false);
  assert.equal(validate({ ...ok, software: { name: "Roost", version: "1" } }), false);
  assert.equal(validate({ ...ok, usage: { users: { total: -1 } } }), false);
  assert.equal(validate({ ...ok, protocols: [] }), false);
});

test("NodeInfo discovery and a schema-valid 2.0 document with real usage numbers", async (t) => {
  const s = await startTestServer({ config: { registrations: "approval", description: "Owls only" } });
  t.after(() => s.close());
  const T = Date.UTC(2025, 2, 10, 12);
  // bob was last active 100 days ago: half-year but not month.
  s.app.now = () => T - 100 * DAY;
  const bob = await s.user("bob");
  await s.api(bob, "GET", "/api/v1/apps/verify_credentials");
  s.app.now = () => T - 200 * DAY;
  const carol = await s.user("carol");
  await s.api(carol, "GET", "/api/v1/apps/verify_credentials"); // too long ago for either
  s.app.now = () => T;
  const alice = await s.user("alice");
  await s.api(alice, "GET", "/api/v1/apps/verify_credentials");
  await s.user("unconfirmed", { confirmed: false });
  for (let i = 0; i < 3; i++) {
    insertStatus(s.app.db, {
      id: s.app.ids.next(),
      accountId: alice.id,
      local: true,
      uri: `${s.app.baseUrl}/users/alice/statuses/${i}`,
      url: null,
      text: "hoot",
      content: "<p>hoot</p>",
      spoilerText: "",
      sensitive: false,
      visibility: "public",
      language: "en",
      inReplyToId: null,
      inReplyToAccountId: null,
      inReplyToUri: null,
      reblogOfId: null,
      conversationId: null,
      applicationId: null,
      createdAt: T,
    });
  }

  const links = await s.req(null, "GET", "/.well-known/nodeinfo");
  assert.equal(links.status, 200);
  assert.equal(links.headers.get("content-type"), "application/json; charset=utf-8");
  assert.equal(links.headers.get("access-control-allow-origin"), "*");
  assert.deepEqual(links.body, {
    links: [{ rel: "http://nodeinfo.diaspora.software/ns/schema/2.0", href: `${s.app.baseUrl}/nodeinfo/2.0` }],
  });

  const res = await s.req(null, "GET", "/nodeinfo/2.0");
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), 'application/json; profile="http://nodeinfo.diaspora.software/ns/schema/2.0#"');
  assert.equal(res.headers.get("cache-control"), "public, max-age=1800");
  assert.equal(res.headers.get("access-control-allow-origin"), "*");
  const doc = JSON.parse(res.text);
  const validate = nodeInfoValidator();
  assert.equal(validate(doc), true, JSON.stringify(validate.errors));
  assert.deepEqual(doc, {
    version: "2.0",
    software: { name: "roost", version: ROOST_VERSION },
    protocols: ["activitypub"],
    services: { outbound: [], inbound: [] },
    usage: { users: { total: 3, activeMonth: 1, activeHalfyear: 2 }, localPosts: 3 },
    // Sign-ups that need approval are still open registrations.
    openRegistrations: true,
    metadata: { nodeName: "Roost Test", nodeDescription: "Owls only", upstream: { name: "mastodon", version: "4.3.0" } },
  });
  assert.equal((await s.api(null, "GET", "/api/v1/instance")).stats.status_count, 3);

  s.app.config.registrations = "closed";
  const closed = JSON.parse((await s.req(null, "GET", "/nodeinfo/2.0.json")).text);
  assert.equal(closed.openRegistrations, false);
  assert.equal(validate(closed), true);
});

test("the version constant matches package.json", () => {
  const pkg = JSON.parse(readFileSync(fixture("../../package.json"), "utf8"));
  assert.equal(ROOST_VERSION, pkg.version);
});

// CAS sign-in against a small CAS 3.0 server run inside the test: first sign-in creates the
// account, the next finds it through its identity, the OAuth flow continues after it, and a
// replayed ticket or a callback with the wrong state is refused.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { startTestServer } from "../helpers/server.ts";
import { Browser, formWithButton } from "../api/oauth-helpers.ts";

interface CasUser { user: string; email?: string; name?: string }

/** A CAS server: /login issues a ticket for `who` at once; /p3/serviceValidate accepts it any number of times. */
async function startCas(who: () => CasUser): Promise<{ url: string; server: Server; validations: number }> {
  const tickets = new Map<string, { service: string; user: CasUser }>();
  const out = { url: "", server: createServer(), validations: 0 };
  out.server.on("request", (req, res) => {
    const u = new URL(req.url ?? "/", out.url);
    if (u.pathname === "/cas/login") {
      const service = u.searchParams.get("service")!;
      const ticket = `ST-${tickets.size + 1}-test`;
      tickets.set(ticket, { service, user: who() });
      res.writeHead(302, { location: `${service}${service.includes("?") ? "&" : "?"}ticket=${ticket}` }).end();
      return;
    }
    if (u.pathname === "/cas/p3/serviceValidate") {
      out.validations++;
      const t = tickets.get(u.searchParams.get("ticket") ?? "");
      res.writeHead(200, { "content-type": "application/xml" });
      if (!t || t.service !== u.searchParams.get("service")) {
        res.end(`<cas:serviceResponse xmlns:cas="http://www.yale.edu/tp/cas"><cas:authenticationFailure code="INVALID_TICKET">no</cas:authenticationFailure></cas:serviceResponse>`);
        return;
      }
      const attrs = [t.user.email && `<cas:email>${t.user.email}</cas:email>`, t.user.name && `<cas:name>${t.user.name}</cas:name>`].filter(Boolean).join("");
      res.end(`<cas:serviceResponse xmlns:cas="http://www.yale.edu/tp/cas"><cas:authenticationSuccess><cas:user>${t.user.user}</cas:user><cas:attributes>${attrs}</cas:attributes></cas:authenticationSuccess></cas:serviceResponse>`);
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((ok) => out.server.listen(0, "127.0.0.1", ok));
  out.url = `http://127.0.0.1:${(out.server.address() as AddressInfo).port}`;
  return out;
}

/** Presses the CAS button on the sign-in page (reached through `signInPath`) and comes back with a ticket. */
async function casRoundTrip(b: Browser, signInPath = "/auth/sign_in") {
  const page = await b.fetch(signInPath);
  const form = formWithButton(page.text, "Campus login");
  const start = await b.fetch(form.action, { form: form.fields });
  assert.equal(start.status, 302, start.text);
  const login = await fetch(start.location!, { redirect: "manual" });
  const callback = login.headers.get("location")!;
  assert.match(callback, /\/auth\/auth\/cas\/callback\?state=[^&]+&ticket=ST-/);
  return { callback, finish: await b.fetch(callback) };
}

test("CAS sign-in: creates the account, then finds it; replayed ticket and wrong state are refused", async (t) => {
  let who: CasUser = { user: "carol.smith@uni.example", email: "carol@uni.example", name: "Carol" };
  const cas = await startCas(() => who);
  t.after(() => cas.server.close());
  const s = await startTestServer({
    config: { casUrl: `${cas.url}/cas/`, casDisplayName: "Campus login", casAssumeEmailVerified: true, registrations: "closed" },
  });
  t.after(() => s.close());

  // First sign-in, from an OAuth authorization: the account is made (even with registrations
  // closed, as Mastodon's external users are) and the authorization continues.
  const returnTo = "/oauth/authorize?client_id=abc&response_type=code&redirect_uri=urn%3Aietf%3Awg%3Aoauth%3A2.0%3Aoob";
  const b = new Browser(s.url);
  const first = await casRoundTrip(b, `/auth/sign_in?return_to=${encodeURIComponent(returnTo)}`);
  assert.equal(first.finish.status, 302, first.finish.text);
  assert.equal(first.finish.location, returnTo);
  assert.ok(b.cookies.get("roost_session"));
  const signedIn = await b.fetch("/auth/sign_in");
  assert.match(signedIn.text, /signed in as <strong>@carolsmith@/);
  const acct = await s.api(null, "GET", "/api/v1/accounts/lookup?acct=carolsmith");
  assert.equal(acct.display_name, "Carol");

  // The ticket again, in a new flow of another browser: refused though the CAS server would accept it.
  const b3 = new Browser(s.url);
  const page = await b3.fetch("/auth/sign_in");
  const start = await b3.fetch("/auth/auth/cas", { form: formWithButton(page.text, "Campus login").fields });
  const state = new URL(new URL(start.location!).searchParams.get("service")!).searchParams.get("state")!;
  const oldTicket = new URL(first.callback).searchParams.get("ticket")!;
  const before = cas.validations;
  const replay = await b3.fetch(`/auth/auth/cas/callback?state=${state}&ticket=${oldTicket}`);
  assert.equal(replay.status, 401);
  assert.match(replay.text, /This CAS ticket has already been used/);
  assert.equal(cas.validations, before, "a replayed ticket is not even sent to the CAS server");
  assert.equal(b3.cookies.get("roost_session"), undefined);

  // A callback whose state is not this browser's flow (login CSRF, or a stolen callback URL).
  const b4 = new Browser(s.url);
  const p4 = await b4.fetch("/auth/sign_in");
  await b4.fetch("/auth/auth/cas", { form: formWithButton(p4.text, "Campus login").fields });
  const wrong = await b4.fetch(`/auth/auth/cas/callback?state=wrong&ticket=ST-99-test`);
  assert.equal(wrong.status, 422);
  assert.match(wrong.text, /started in another browser, or it took too long/);
  assert.equal(b4.cookies.get("roost_session"), undefined);

  // The second person's sign-in finds the same account by identity, not a new one.
  const b5 = new Browser(s.url);
  const second = await casRoundTrip(b5);
  assert.equal(second.finish.status, 302);
  assert.match((await b5.fetch("/auth/sign_in")).text, /@carolsmith@/);
  assert.equal((await fetch(`${s.url}/api/v1/accounts/lookup?acct=carolsmith_1`)).status, 404);

  // No verified e-mail: no account is made, with the reason.
  who = { user: "dave" };
  const b6 = new Browser(s.url);
  const none = await casRoundTrip(b6);
  assert.equal(none.finish.status, 403);
  assert.match(none.finish.text, /did not give a verified e-mail address/);
});

test("CAS sign-in: an existing user is taken over by verified e-mail only when configured", async (t) => {
  const cas = await startCas(() => ({ user: "erin-cas", email: "erin@example.com" }));
  t.after(() => cas.server.close());
  for (const reattach of ["none", "email"] as const) {
    const s = await startTestServer({ config: { casUrl: `${cas.url}/cas`, casDisplayName: "Campus login", casAssumeEmailVerified: true, externalAuthReattach: reattach } });
    t.after(() => s.close());
    await s.user("erin", { email: "erin@example.com" });
    const b = new Browser(s.url);
    const { finish } = await casRoundTrip(b);
    if (reattach === "none") {
      assert.equal(finish.status, 403);
      assert.match(finish.text, /already exists here. Sign in with your password instead/);
    } else {
      assert.equal(finish.status, 302, finish.text);
      assert.match((await b.fetch("/auth/sign_in")).text, /signed in as <strong>@erin@/);
    }
  }
});

test("CAS is off unless configured: no button, no route", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const b = new Browser(s.url);
  const page = await b.fetch("/auth/sign_in");
  assert.doesNotMatch(page.text, /Or sign in with/);
  const res = await b.fetch("/auth/auth/cas/callback?state=x&ticket=y");
  assert.equal(res.status, 404);
});

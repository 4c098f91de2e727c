// Test helpers for the browser side of the OAuth flow: a cookie-keeping fetch and HTML form parsing.
import assert from "node:assert/strict";
import type { TestServer } from "../helpers/server.ts";

export const PASSWORD = "correct horse battery";

function unescapeHtml(s: string): string {
  return s
    .replace(/&#(\d+);/g, (_, n) => String.fromCharCode(Number(n)))
    .replace(/&amp;/g, "&")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"');
}

export interface Form {
  action: string;
  fields: Record<string, string>;
  buttons: string[];
}

/** Every form of a page with its hidden fields and button labels. */
export function parseForms(html: string): Form[] {
  const out: Form[] = [];
  for (const m of html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/g)) {
    const action = unescapeHtml(/action="([^"]*)"/.exec(m[1])?.[1] ?? "");
    const fields: Record<string, string> = {};
    for (const i of m[2].matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) fields[unescapeHtml(i[1])] = unescapeHtml(i[2]);
    const buttons = [...m[2].matchAll(/<button[^>]*>([^<]*)<\/button>/g)].map((b) => b[1]);
    out.push({ action, fields, buttons });
  }
  return out;
}

export function formWithButton(html: string, label: string): Form {
  const f = parseForms(html).find((x) => x.buttons.includes(label));
  assert.ok(f, `no form with a "${label}" button in:\n${html}`);
  return f;
}

/** A browser: keeps cookies, never follows redirects. */
export class Browser {
  readonly cookies = new Map<string, string>();
  constructor(readonly base: string) {}

  async fetch(path: string, init: { method?: string; form?: Record<string, string>; headers?: Record<string, string> } = {}) {
    const headers: Record<string, string> = { accept: "text/html", ...init.headers };
    if (this.cookies.size) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    const body = init.form ? new URLSearchParams(init.form) : undefined;
    const url = path.startsWith("http") ? path : this.base + path;
    const res = await fetch(url, { method: init.method ?? (body ? "POST" : "GET"), headers, body, redirect: "manual" });
    for (const c of res.headers.getSetCookie()) {
      const [pair, ...attrs] = c.split(";");
      const i = pair.indexOf("=");
      const name = pair.slice(0, i).trim();
      if (attrs.some((a) => /^\s*max-age=0\s*$/i.test(a))) this.cookies.delete(name);
      else this.cookies.set(name, pair.slice(i + 1).trim());
    }
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, location: res.headers.get("location") };
  }

  /** GET the sign-in page (through `path`, e.g. an authorize URL) and post the credentials. */
  async signIn(login: string, password = PASSWORD, signInPath = "/auth/sign_in") {
    const page = await this.fetch(signInPath);
    assert.equal(page.status, 200, page.text);
    const form = formWithButton(page.text, "Sign in");
    return this.fetch("/auth/sign_in", { form: { ...form.fields, login, password } });
  }
}

export interface RegisteredApp {
  id: string;
  client_id: string;
  client_secret: string;
  redirect_uris: string[];
  scopes: string[];
}

export async function registerApp(
  s: TestServer,
  o: { redirect_uris?: string | string[]; scopes?: string; client_name?: string } = {},
): Promise<RegisteredApp> {
  return s.api(null, "POST", "/api/v1/apps", {
    client_name: o.client_name ?? "Test Client",
    redirect_uris: o.redirect_uris ?? "https://client.example/cb",
    scopes: o.scopes ?? "read write push profile",
  });
}

/** The authorize URL for an app, with the given extra parameters. */
export function authorizePath(a: RegisteredApp, extra: Record<string, string> = {}): string {
  const q = new URLSearchParams({ response_type: "code", client_id: a.client_id, redirect_uri: a.redirect_uris[0], ...extra });
  return `/oauth/authorize?${q}`;
}

/**
 * Signed-in browser goes through /oauth/authorize (consent page → Authorize) and returns the
 * final redirect's Location.
 */
export async function approve(b: Browser, path: string): Promise<string> {
  const consent = await b.fetch(path);
  assert.equal(consent.status, 200, consent.text);
  const form = formWithButton(consent.text, "Authorize");
  const res = await b.fetch(form.action, { form: form.fields });
  assert.equal(res.status, 302, res.text);
  return res.location!;
}

export function codeFrom(location: string): string {
  const code = new URL(location).searchParams.get("code");
  assert.ok(code, `no code in ${location}`);
  return code;
}

export async function exchangeCode(s: TestServer, a: RegisteredApp, code: string, extra: Record<string, string> = {}) {
  return s.req(null, "POST", "/oauth/token", new URLSearchParams({
    grant_type: "authorization_code",
    code,
    redirect_uri: a.redirect_uris[0],
    client_id: a.client_id,
    client_secret: a.client_secret,
    ...extra,
  }));
}

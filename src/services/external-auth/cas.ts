// CAS 3.0 sign-in (https://apereo.github.io/cas/development/protocol/CAS-Protocol-Specification.html):
// the browser goes to <casUrl>/login?service=…, comes back with a service ticket, and the server
// checks it at <casUrl>/p3/serviceValidate. Tickets are single-use here too, whatever the CAS
// server does, and the service URL carries the flow state so a ticket only finishes the flow of
// the browser that started it.
import type { XMLParser } from "fast-xml-parser";
import type { App } from "../../app.ts";
import { sha256Hex } from "../../lib/crypto.ts";
import { consumeAuthProof } from "../../storage/identities.ts";
import type { ExternalIdentity } from "./identities.ts";

const MAX_RESPONSE = 256 * 1024;
const TIMEOUT_MS = 10_000;
// How long a used ticket is remembered: CAS tickets live seconds (Apereo: 10 s by default).
const TICKET_MEMORY_MS = 24 * 3600_000;

export const CAS_ERRORS = {
  replayed: "This CAS ticket has already been used. Please sign in again.",
  invalid: "The CAS server did not accept the ticket. Please sign in again.",
  unreachable: "The CAS server could not be reached. Please try again later.",
} as const;

export function casEnabled(app: App): boolean {
  return app.config.casUrl !== "";
}

function base(app: App): string {
  return app.config.casUrl.replace(/\/+$/, "");
}

/** Mastodon's callback path (omniauth under /auth/auth), with this flow's state. */
export function casServiceUrl(app: App, state: string): string {
  return `${app.baseUrl}/auth/auth/cas/callback?state=${encodeURIComponent(state)}`;
}

export function casLoginUrl(app: App, state: string): string {
  return `${base(app)}/login?service=${encodeURIComponent(casServiceUrl(app, state))}`;
}

// The parser is loaded on first use (idle memory stays small where CAS is off).
let parser: XMLParser | undefined;
async function casParser(): Promise<XMLParser> {
  if (parser) return parser;
  const { XMLParser } = await import("fast-xml-parser");
  return (parser = new XMLParser(PARSER_OPTIONS));
}

const PARSER_OPTIONS = {
  removeNSPrefix: true,
  ignoreAttributes: false,
  attributeNamePrefix: "@",
  parseTagValue: false,
  trimValues: true,
  processEntities: false,
};

function text(v: unknown): string | null {
  if (Array.isArray(v)) return text(v[0]);
  if (typeof v === "string") return v;
  if (v && typeof v === "object" && typeof (v as Record<string, unknown>)["#text"] === "string") return (v as Record<string, string>)["#text"];
  return null;
}

/** The identity in a serviceValidate answer, or why there is none. */
export async function parseCasResponse(app: App, xml: string): Promise<ExternalIdentity | string> {
  const parser = await casParser();
  let doc: Record<string, unknown>;
  try {
    doc = parser.parse(xml) as Record<string, unknown>;
  } catch {
    return CAS_ERRORS.invalid;
  }
  const response = doc.serviceResponse as Record<string, unknown> | undefined;
  const ok = response?.authenticationSuccess as Record<string, unknown> | undefined;
  if (!ok || typeof ok !== "object") return CAS_ERRORS.invalid;
  const attrs = (ok.attributes && typeof ok.attributes === "object" ? ok.attributes : {}) as Record<string, unknown>;
  const cfg = app.config;
  const uid = cfg.casUidAttribute ? text(attrs[cfg.casUidAttribute]) : text(ok.user);
  if (!uid) return CAS_ERRORS.invalid;
  return {
    provider: "cas",
    uid,
    email: text(attrs[cfg.casEmailAttribute]),
    emailVerified: cfg.casAssumeEmailVerified,
    displayName: text(attrs[cfg.casNameAttribute]),
  };
}

/** Checks a service ticket with the CAS server, once: a ticket seen before is refused. */
export async function validateCasTicket(app: App, ticket: string, state: string): Promise<ExternalIdentity | string> {
  if (!ticket || ticket.length > 4096) return CAS_ERRORS.invalid;
  const now = app.now();
  if (!consumeAuthProof(app.db, "cas", sha256Hex(ticket), now, now + TICKET_MEMORY_MS)) return CAS_ERRORS.replayed;
  const url = `${base(app)}/p3/serviceValidate?service=${encodeURIComponent(casServiceUrl(app, state))}&ticket=${encodeURIComponent(ticket)}`;
  let body: string;
  try {
    const res = await fetch(url, { headers: { accept: "application/xml, text/xml" }, signal: AbortSignal.timeout(TIMEOUT_MS), redirect: "error" });
    if (!res.ok) return CAS_ERRORS.invalid;
    body = await res.text();
  } catch {
    return CAS_ERRORS.unreachable;
  }
  if (body.length > MAX_RESPONSE) return CAS_ERRORS.invalid;
  return parseCasResponse(app, body);
}

// Fixtures shared by the accounts test files (built through services, as the CLI would).
import sharp from "sharp";
import type { TestServer } from "../helpers/server.ts";
import { registerApplication, OOB_URI } from "../../src/services/oauth-apps.ts";
import { issueToken } from "../../src/services/tokens.ts";

/** A registered app and a client-credentials token (no user) with `scopes`. */
export function appToken(s: TestServer, scopes = ["read", "write"]): { token: string; applicationId: string } {
  const { application } = registerApplication(s.app, {
    name: "Test client",
    redirectUris: [OOB_URI],
    scopes: scopes.join(" "),
    website: undefined,
  });
  const { token } = issueToken(s.app, { userId: null, applicationId: application.id, scopes });
  return { token, applicationId: application.id };
}

/** A PNG of the given size, one solid colour. */
export function png(width: number, height: number, rgb = { r: 200, g: 40, b: 40 }): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: rgb } }).png().toBuffer();
}

export function imageForm(field: string, data: Uint8Array, name: string, type: string): FormData {
  const f = new FormData();
  f.append(field, new Blob([new Uint8Array(data)], { type }), name);
  return f;
}

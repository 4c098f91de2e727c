import { hmacHex, randomToken, safeEqual } from "./crypto.ts";

/**
 * Double-submit CSRF protection for the server-rendered forms (sign-in, consent, sign-out):
 * each browser holds a random secret in an HttpOnly cookie, and every form carries
 * HMAC(server secret, browser secret). A cross-site page can neither read the cookie nor
 * compute the HMAC, and a planted cookie is useless without the server secret.
 */
export function newBrowserSecret(): string {
  return randomToken(24);
}

export function csrfToken(serverSecret: string, browserSecret: string): string {
  return hmacHex(serverSecret, `csrf:${browserSecret}`);
}

export function verifyCsrfToken(serverSecret: string, browserSecret: string | undefined, token: string | undefined): boolean {
  if (!browserSecret || !token || browserSecret.length > 200 || token.length > 200) return false;
  return safeEqual(csrfToken(serverSecret, browserSecret), token);
}

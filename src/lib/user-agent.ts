import Bowser from "bowser";

/** "Firefox 128 on Linux", "Safari on iOS", or "Unknown browser": the device line of a session. */
export function describeUserAgent(ua: string | null): string {
  if (!ua) return "Unknown browser";
  try {
    const r = Bowser.parse(ua.slice(0, 512));
    const name = r.browser.name || "Unknown browser";
    const major = r.browser.version?.split(".")[0];
    const os = r.os.name ? ` on ${r.os.name}` : "";
    return `${name}${major ? ` ${major}` : ""}${os}`;
  } catch {
    return "Unknown browser";
  }
}

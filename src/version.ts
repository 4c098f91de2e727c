// Version facts of this build. A constant rather than a package.json read at run time, so the
// bundle does not depend on a file path; test/api/nodeinfo.test.ts checks it matches package.json.

/** roost's own version (package.json "version"). */
export const ROOST_VERSION = "0.1.0";

/**
 * The Mastodon release whose client API roost fully implements. Clients (Ivory, Elk, megalodon,
 * masto.js) parse the leading version of `/api/v1/instance` `version` to decide what to call.
 */
export const MASTODON_COMPAT_VERSION = "4.3.0";

/** Mastodon's `api_versions.mastodon` for MASTODON_COMPAT_VERSION (2 = 4.3). */
export const MASTODON_API_VERSION = 2;

/** What the instance endpoints report as `version`, e.g. "4.3.0 (compatible; roost 0.1.0)". */
export const INSTANCE_VERSION = `${MASTODON_COMPAT_VERSION} (compatible; roost ${ROOST_VERSION})`;

/** Where the source of this build is published (AGPL §13: offered to network users). */
export const SOURCE_URL = "https://github.com/roost-social/roost";

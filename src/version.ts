// Version facts of this build. A constant rather than a package.json read at run time, so the
// bundle does not depend on a file path; test/api/nodeinfo.test.ts checks it matches package.json.

/** roost's own version (package.json "version"). */
export const ROOST_VERSION = "0.1.0";

/** Where the source of this build is published (AGPL §13: offered to network users). */
export const SOURCE_URL = "https://github.com/roost-social/roost";

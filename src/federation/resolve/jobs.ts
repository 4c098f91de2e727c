import type { App } from "../../app.ts";

/** Discovery jobs: refresh of stale remote accounts, deferred fetches (thread parents...). */
export function registerResolveJobs(_app: App): void {}

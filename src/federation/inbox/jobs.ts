import type { App } from "../../app.ts";

/** `inbox.process` and any other job of the inbox side. */
export function registerInboxJobs(_app: App): void {}

import type { App } from "../../app.ts";

/** `federation.distribute`, `federation.deliver` and the outbox side's periodic tasks. */
export function registerOutboxJobs(_app: App): void {}

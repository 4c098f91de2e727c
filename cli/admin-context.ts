import type { Command } from "commander";
import type { Actor } from "../src/admin/actor.ts";
import type { App } from "../src/app.ts";

// The admin commands (accounts, reports, roles, audit, warning-presets) go through the same
// admin/ use cases as the API, as the user named by --as or else the instance owner, so the
// audit log records them (source "cli") and the same permissions and ranks apply.

export const AS_HELP = "act as this local user (default: the instance owner)";

/** Runs `fn` with the app and the acting user; jobs it queues run in `roost serve`. */
export async function asActor<T>(cmd: Command, fn: (app: App, actor: Actor) => T | Promise<T>): Promise<T> {
  const { withApp } = await import("./with-app.ts");
  const { operatorActor } = await import("../src/admin/listing.ts");
  const as = (cmd.optsWithGlobals() as { as?: string }).as;
  return withApp(cmd, (app) => fn(app, operatorActor(app, as)));
}

/** A positive integer option. */
export function positiveInt(name: string) {
  return (v: string): number => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer`);
    return n;
  };
}

import type { App } from "../../app.ts";
import { buildArchive } from "../../services/account-archives.ts";
import { toApStatusActivities } from "../../federation/serializers/activities.ts";
import { toApActor } from "../../federation/serializers/actor.ts";

/** archive.build: the account's archive ZIP, with posts and actor as federation renders them. */
export function handleArchiveBuild(app: App, payload: { archiveId?: string; notify?: boolean }): Promise<void> {
  return buildArchive(app, payload, { actor: toApActor, activities: toApStatusActivities });
}

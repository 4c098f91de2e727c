import type { App } from "../app.ts";
import type { NodeInfoUsage } from "../services/instance.ts";
import { ROOST_VERSION } from "../version.ts";
import { registrationsMode } from "../storage/instance-settings.ts";

// NodeInfo 2.0 (http://nodeinfo.diaspora.software/ns/schema/2.0). The schema forbids any other
// key at the top level and inside software, services and usage; metadata is free-form.

export const NODEINFO_20_REL = "http://nodeinfo.diaspora.software/ns/schema/2.0";
export const NODEINFO_20_CONTENT_TYPE = `application/json; profile="${NODEINFO_20_REL}#"`;

export function toNodeInfoLinks(app: App) {
  return { links: [{ rel: NODEINFO_20_REL, href: `${app.baseUrl}/nodeinfo/2.0` }] };
}

export function toNodeInfo20(app: App, usage: NodeInfoUsage) {
  return {
    version: "2.0",
    software: { name: "roost", version: ROOST_VERSION },
    protocols: ["activitypub"],
    services: { outbound: [], inbound: [] },
    usage: {
      users: { total: usage.total, activeMonth: usage.activeMonth, activeHalfyear: usage.activeHalfyear },
      localPosts: usage.localPosts,
    },
    // Approval-required sign-ups still count as open (Mastodon: only "none" closes them).
    openRegistrations: registrationsMode(app) !== "closed",
    metadata: {
      nodeName: app.config.title,
      nodeDescription: app.config.description,
      // software.name stays "roost"; clients that pick an API flavour from NodeInfo (megalodon's
      // detector(), hence Whalebird) take a server for Mastodon when upstream.name is "mastodon".
      upstream: { name: "mastodon", version: usage.compatibleRelease },
    },
  };
}

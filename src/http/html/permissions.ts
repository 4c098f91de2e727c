// Groups requested scopes for the consent page the way Mastodon's authorization page does:
// scope grammar `[admin:](read|write)[:term]` or a bare term (follow, push, profile).

const TERM_LABELS: Record<string, string> = {
  all: "Full access to your account",
  "admin/all": "All administrative functions",
  accounts: "Accounts",
  blocks: "Blocks",
  bookmarks: "Bookmarks",
  collections: "Collections",
  conversations: "Conversations",
  favourites: "Favorites",
  filters: "Filters",
  follow: "Follows, mutes and blocks",
  follows: "Follows",
  lists: "Lists",
  media: "Media attachments",
  mutes: "Mutes",
  notifications: "Notifications",
  profile: "Your profile information",
  push: "Push notifications",
  reports: "Reports",
  search: "Search",
  statuses: "Posts",
};

export interface PermissionGroup {
  label: string;
  access: string;
}

function labelOf(term: string): string {
  if (TERM_LABELS[term]) return TERM_LABELS[term];
  if (term.startsWith("admin/")) return `Administration of ${term.slice(6).replace(/_/g, " ")}`;
  return term.replace(/_/g, " ");
}

export function groupScopes(scopes: readonly string[]): PermissionGroup[] {
  const groups = new Map<string, Set<"read" | "write">>();
  const add = (term: string, ...access: ("read" | "write")[]) => {
    let g = groups.get(term);
    if (!g) groups.set(term, (g = new Set()));
    for (const a of access) g.add(a);
  };
  for (const s of scopes) {
    if (s === "profile") add("profile", "read");
    else if (s === "follow" || s === "push") add(s, "read", "write");
    else {
      const m = /^(admin:)?(read|write)(?::([a-z_]+))?$/.exec(s);
      if (m) add(`${m[1] ? "admin/" : ""}${m[3] ?? "all"}`, m[2] as "read" | "write");
    }
  }
  const order = [...groups.keys()].sort((a, b) => Number(!a.endsWith("all")) - Number(!b.endsWith("all")));
  return order.map((term) => {
    const g = groups.get(term)!;
    const access = g.has("read") && g.has("write") ? "Read and write access" : g.has("read") ? "Read-only access" : "Write-only access";
    return { label: labelOf(term), access };
  });
}

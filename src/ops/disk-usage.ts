import { type Dirent, lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";

export interface Usage {
  files: number;
  bytes: number;
}

/** Files and bytes under a directory (symbolic links are not followed); zero when missing. */
export function directoryUsage(dir: string): Usage {
  const total: Usage = { files: 0, bytes: 0 };
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return total;
  }
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      const sub = directoryUsage(p);
      total.files += sub.files;
      total.bytes += sub.bytes;
    } else if (e.isFile()) {
      try {
        total.bytes += lstatSync(p).size;
        total.files++;
      } catch {
        // removed meanwhile
      }
    }
  }
  return total;
}

/** Usage of each direct subdirectory (files at the top level count as "(top level)"). */
export function usageBySubdirectory(dir: string): Record<string, Usage> {
  const out: Record<string, Usage> = {};
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (e.isDirectory()) out[e.name] = directoryUsage(join(dir, e.name));
    else if (e.isFile()) {
      const top = (out["(top level)"] ??= { files: 0, bytes: 0 });
      top.files++;
      top.bytes += lstatSync(join(dir, e.name)).size;
    }
  }
  return out;
}

/** Size of a file in bytes, 0 when it does not exist. */
export function fileBytes(path: string): number {
  try {
    return lstatSync(path).size;
  } catch {
    return 0;
  }
}

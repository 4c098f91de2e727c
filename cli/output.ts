// What list and show commands print: an aligned table for people, or one JSON object per
// line with --json for scripts (every row complete, values typed as in the API).

export type Cell = string | number | boolean | null | undefined;

function cellText(v: Cell): string {
  if (v === null || v === undefined) return "-";
  if (typeof v === "boolean") return v ? "yes" : "no";
  return String(v).replace(/\s+/g, " ");
}

/** Rows as an aligned table with a header (nothing but the header when there are none). */
export function formatTable<T extends Record<string, unknown>>(rows: T[], columns: { key: keyof T & string; title: string }[]): string {
  const cells = rows.map((r) => columns.map((c) => cellText(r[c.key] as Cell)));
  const widths = columns.map((c, i) => Math.max(c.title.length, ...cells.map((row) => row[i].length)));
  const line = (values: string[]) =>
    values
      .map((v, i) => (i === values.length - 1 ? v : v.padEnd(widths[i])))
      .join("  ")
      .trimEnd();
  return [line(columns.map((c) => c.title.toUpperCase())), ...cells.map(line)].join("\n") + "\n";
}

export function formatJsonLines(rows: unknown[]): string {
  return rows.map((r) => JSON.stringify(r) + "\n").join("");
}

/** Prints rows in the chosen form, in chunks so that a long listing never builds one huge string. */
export function printRows<T extends Record<string, unknown>>(rows: T[], columns: { key: keyof T & string; title: string }[], json: boolean | undefined): void {
  if (json) {
    for (let i = 0; i < rows.length; i += 1000) process.stdout.write(formatJsonLines(rows.slice(i, i + 1000)));
  } else process.stdout.write(formatTable(rows, columns));
}

/** A record as `key: value` lines, or one JSON line. */
export function printRecord(record: Record<string, unknown>, json: boolean | undefined): void {
  if (json) {
    process.stdout.write(JSON.stringify(record) + "\n");
    return;
  }
  const width = Math.max(...Object.keys(record).map((k) => k.length));
  for (const [k, v] of Object.entries(record)) {
    if (Array.isArray(v)) {
      process.stdout.write(`${k.padEnd(width)}  ${v.length === 0 ? "-" : ""}\n`);
      for (const item of v) process.stdout.write(`  ${typeof item === "object" ? Object.values(item as object).map((x) => cellText(x as Cell)).join("  ") : cellText(item as Cell)}\n`);
    } else process.stdout.write(`${k.padEnd(width)}  ${cellText(v as Cell)}\n`);
  }
}

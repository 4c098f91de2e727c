// Summarises a V8 .cpuprofile (node --cpu-prof): the functions with the most self time and
// the most inclusive time, as text. Used by bench/profile.ts.

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const label = (n: ProfileNode) => {
  const f = n.callFrame;
  const file = f.url.replace(/^.*\/(node_modules\/)?/, "");
  return `${f.functionName || "(anonymous)"} ${file}:${f.lineNumber + 1}`;
};

export function summarizeProfile(p: CpuProfile, top: number): string {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const selfUs = new Map<number, number>();
  p.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (p.timeDeltas[i] ?? 0)));
  const total = [...selfUs.values()].reduce((a, b) => a + b, 0);

  const self = new Map<string, number>();
  const incl = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const n = byId.get(id)!;
    self.set(label(n), (self.get(label(n)) ?? 0) + us);
    // Inclusive: every distinct function on the stack gets the sample once.
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const l = label(byId.get(cur)!);
      if (seen.has(l)) continue;
      seen.add(l);
      incl.set(l, (incl.get(l) ?? 0) + us);
    }
  }
  const fmt = (m: Map<string, number>) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([l, us]) => `${((us / total) * 100).toFixed(1).padStart(5)}%  ${l}`)
      .join("\n");
  return `total ${(total / 1e6).toFixed(1)} s sampled\n-- self --\n${fmt(self)}\n-- inclusive --\n${fmt(incl)}`;
}

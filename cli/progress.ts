// A progress bar on stderr: redrawn in place on a terminal, a line every 10% otherwise (logs).

export interface Progress {
  update(done: number, total: number): void;
  end(): void;
}

const WIDTH = 30;

export function progressBar(label: string, out: NodeJS.WriteStream = process.stderr): Progress {
  const tty = out.isTTY === true;
  let shown = -1;
  return {
    update(done, total) {
      const pct = total <= 0 ? 100 : Math.min(100, Math.floor((done * 100) / total));
      if (pct === shown || (!tty && pct < shown + 10 && pct !== 100)) return;
      shown = pct;
      const filled = Math.round((pct * WIDTH) / 100);
      const line = `${label} [${"#".repeat(filled)}${".".repeat(WIDTH - filled)}] ${String(pct).padStart(3)}% ${done}/${total}`;
      out.write(tty ? `\r${line}` : `${line}\n`);
    },
    end() {
      if (tty && shown !== -1) out.write("\n");
    },
  };
}

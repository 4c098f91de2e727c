import type { ChildReply } from "./process-runner.ts";
import { tasks } from "./tasks.ts";

// Entry of the worker process (process-runner.ts): runs the tasks its parent sends, several at
// once (sharp works off the main thread), and goes when the parent does.
process.on("message", (msg: { id: number; task: string; payload: unknown }) => {
  const fn = tasks[msg.task];
  const reply = (r: ChildReply) => process.send?.(r);
  if (!fn) {
    reply({ id: msg.id, ok: false, error: `unknown worker task: ${msg.task}` });
    return;
  }
  Promise.resolve()
    .then(() => fn(msg.payload))
    .then(
      (result) => reply({ id: msg.id, ok: true, result }),
      (err: unknown) => reply({ id: msg.id, ok: false, error: err instanceof Error ? err.message : String(err) }),
    );
});
process.on("disconnect", () => process.exit(0));

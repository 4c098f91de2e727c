import { tasks } from "./tasks.ts";

// Piscina entry point: one worker file, tasks dispatched by name. Pure functions only
// (no database): results go back to the main thread, which writes them.
export default async function run({ task, payload }: { task: string; payload: unknown }): Promise<unknown> {
  const fn = tasks[task];
  if (!fn) throw new Error(`unknown worker task: ${task}`);
  return fn(payload);
}

import type { App } from "../../app.ts";
import { endPoll, type PollEndPayload } from "../../services/poll-end.ts";

/** `poll.end`: at a poll's end, notifications and the final tallies (services/poll-end.ts). */
export function handlePollEnd(app: App, payload: PollEndPayload): void {
  endPoll(app, payload);
}

import type { App } from "../app.ts";
import type { MailMessage } from "./transport.ts";

// Mail goes out as persisted jobs (`mail.send`), enqueued in the transaction of what caused
// it, so a failed or slow mail server never blocks or fails the request, and a message is
// retried (10 attempts with the runner's backoff) until the server takes it.

export const MAIL_SEND_JOB = "mail.send";

/** Queues a message. Synchronous: call it inside the tx() of the change it reports. */
export function enqueueMail(app: App, msg: MailMessage): void {
  // Mail to an address we cannot use is dropped rather than retried forever.
  if (!msg.to || /[\r\n]/.test(msg.to)) return;
  app.jobs.enqueue(MAIL_SEND_JOB, msg, { queue: "mail" });
}

import type { App } from "../../app.ts";
import { PermanentJobError } from "../../errors.ts";
import { mailer, type MailMessage } from "../../mail/transport.ts";

/** `mail.send`: one message. A 5xx answer from the SMTP server is final; anything else is retried. */
export async function handleMailSend(app: App, msg: MailMessage): Promise<void> {
  const m = await mailer(app);
  try {
    await m.send(msg);
  } catch (e) {
    const code = (e as { responseCode?: number }).responseCode;
    if (typeof code === "number" && code >= 500) throw new PermanentJobError(`mail to ${msg.to} refused: ${(e as Error).message}`);
    throw e;
  }
}

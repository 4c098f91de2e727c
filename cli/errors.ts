import { ApiError } from "../src/errors.ts";

/** A failure the operator caused (bad argument, wrong state): its message is the whole story. */
export class CliError extends Error {
  override name = "CliError";
}

/**
 * One line for stderr. Validation errors list each attribute's problems the way an operator
 * reads them ("username has already been taken"), not as Mastodon's API sentence.
 */
export function errorLine(err: unknown): string {
  let msg: string;
  if (err instanceof ApiError && err.details && Object.keys(err.details).length > 0) {
    msg = Object.entries(err.details)
      .flatMap(([attr, list]) => list.map((d) => `${attr.replace(/_/g, " ")} ${d.description}`))
      .join("; ");
  } else if (err instanceof ApiError) {
    msg = err.description ? `${err.error}: ${err.description}` : err.error;
  } else if (err instanceof Error) {
    msg = err.message || err.name;
  } else {
    msg = String(err);
  }
  return msg.replace(/\s*\n\s*/g, " ").trim();
}

/** What --verbose prints: the stack (which starts with the message) or the one line. */
export function errorDetail(err: unknown): string {
  return err instanceof Error && err.stack ? err.stack : errorLine(err);
}

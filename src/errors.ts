/**
 * The one error type of the HTTP layer and services. `error` is Mastodon's wording and becomes
 * the `{"error": ...}` body; `description` is sent as `error_description` on OAuth routes;
 * `details` carries Mastodon's per-attribute validation details (registration, profile update).
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    readonly description?: string,
    readonly details?: Record<string, { error: string; description: string }[]>,
    readonly headers?: Record<string, string>,
  ) {
    super(error);
    this.name = "ApiError";
  }
}

export const notFound = (what = "Record not found") => new ApiError(404, what);
export const unprocessable = (message: string, details?: ApiError["details"]) =>
  new ApiError(422, message, undefined, details);
export const badRequest = (message: string) => new ApiError(400, message);
export const forbidden = (message = "This action is not allowed") => new ApiError(403, message);
export const missingParam = (name: string) =>
  new ApiError(400, `param is missing or the value is empty: ${name}`);

/** Thrown by job handlers when retrying cannot help; the job is dropped. */
export class PermanentJobError extends Error {
  override name = "PermanentJobError";
}

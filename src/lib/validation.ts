import { ApiError } from "../errors.ts";

/**
 * Collects Rails-style model errors and throws Mastodon's 422:
 * `{"error":"Validation failed: Username has already been taken", "details": {...}}`.
 */
export class Validation {
  private readonly errors: { attr: string; code: string; message: string }[] = [];

  add(attr: string, code: string, message: string): this {
    this.errors.push({ attr, code, message });
    return this;
  }

  /** Whether `attr` has an error already. */
  has(attr: string): boolean {
    return this.errors.some((e) => e.attr === attr);
  }

  get ok(): boolean {
    return this.errors.length === 0;
  }

  throwIfAny(): void {
    if (this.ok) return;
    const human = (attr: string) => {
      const s = attr.replace(/_/g, " ");
      return s.charAt(0).toUpperCase() + s.slice(1);
    };
    const details: Record<string, { error: string; description: string }[]> = {};
    for (const e of this.errors) (details[e.attr] ??= []).push({ error: e.code, description: e.message });
    const msg = "Validation failed: " + this.errors.map((e) => `${human(e.attr)} ${e.message}`).join(", ");
    throw new ApiError(422, msg, undefined, details);
  }
}

// Mastodon's Account::USERNAME_RE for local accounts.
export const USERNAME_RE = /^[a-z0-9_]+([a-z0-9_.-]+[a-z0-9_]+)?$/i;
export const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

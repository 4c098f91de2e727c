// push.md §5 (Mastodon's Web::PushNotificationWorker): what each answer of a push service means.
import { test } from "node:test";
import assert from "node:assert/strict";
import { pushOutcome } from "../../src/push/deliver.ts";

test("2xx is delivered; a 4xx other than 408 and 429 ends the subscription; 408, 429 and 5xx are retried", () => {
  const by = (codes: number[]) => codes.map((c) => [c, pushOutcome(c)]);
  assert.deepEqual(by([200, 201, 202]), [[200, "delivered"], [201, "delivered"], [202, "delivered"]]);
  assert.deepEqual(by([400, 401, 403, 404, 410, 413]), [[400, "gone"], [401, "gone"], [403, "gone"], [404, "gone"], [410, "gone"], [413, "gone"]]);
  assert.deepEqual(by([408, 429, 500, 502, 503, 504]), [[408, "retry"], [429, "retry"], [500, "retry"], [502, "retry"], [503, "retry"], [504, "retry"]]);
  // A redirect is not followed (maxRedirects 0): asked again later, never taken as delivered.
  assert.equal(pushOutcome(301), "retry");
});

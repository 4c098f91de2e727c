// A real browser for page tests: Debian's chromium (/usr/bin/chromium; .ci/run installs it)
// driven by playwright-core. Each test gets a fresh context (no cookies) and the console
// messages of its pages, so a test can check that no CSP violation or script error occurred.
import { existsSync } from "node:fs";
import { type Browser, type BrowserContext, type ConsoleMessage, chromium, type Page } from "playwright-core";

export const CHROMIUM = process.env.ROOST_TEST_CHROMIUM ?? "/usr/bin/chromium";

export interface TestBrowser {
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** Console messages and page errors seen so far, as "type: text". */
  console: string[];
  /**
   * The messages that are errors (CSP violations are reported as console errors), and responses
   * of 400 and above other than /favicon.ico (which chromium asks for on its own).
   */
  errors(): string[];
  close(): Promise<void>;
}

// A machine without chromium skips the page tests, except where ROOST_REQUIRE_BROWSER is set
// (.ci/run sets it after installing chromium), so CI can never pass them by skipping.
export const hasChromium = () => existsSync(CHROMIUM) || process.env.ROOST_REQUIRE_BROWSER === "1";

export async function openBrowser(): Promise<TestBrowser> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"] });
  const context = await browser.newContext();
  const page = await context.newPage();
  const console: string[] = [];
  page.on("console", (m: ConsoleMessage) => console.push(`${m.type()}: ${m.text()}`));
  page.on("pageerror", (e) => console.push(`pageerror: ${e.message}`));
  const failed: string[] = [];
  page.on("response", (r) => {
    if (r.status() >= 400 && new URL(r.url()).pathname !== "/favicon.ico") failed.push(`response ${r.status()}: ${r.url()}`);
  });
  return {
    browser,
    context,
    page,
    console,
    errors: () => [
      ...console.filter((l) => (l.startsWith("error:") && !l.includes("Failed to load resource")) || l.startsWith("pageerror:") || /Content Security Policy/i.test(l)),
      ...failed.splice(0),
    ],
    close: () => browser.close(),
  };
}

/** Signs in through the real sign-in form (the page must be showing it). */
export async function signInWithForm(page: Page, login: string, password: string): Promise<void> {
  await page.fill("#login", login);
  await page.fill("#password", password);
  await Promise.all([page.waitForNavigation(), page.click("button[type=submit]")]);
}

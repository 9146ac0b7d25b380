// The game's page of a scenario whose texts are HTML: its description, a
// key, a value and a reason each hold "<!-- <script>", "</script>" and
// markup that would run a script. The page must parse as lockstep wrote it:
// the texts show as text, the game plays, and no injected script runs.
//
//   node hostile_page_test.mjs LOCKSTEP
//
// Exits 0 iff every check holds; prints each failure.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";

const [lockstep] = process.argv.slice(2);
const failures = [];
function check(ok, what) {
  if (!ok) failures.push(what);
  console.log((ok ? "ok     " : "FAILED ") + what);
}

const injected = "<!-- <script>window.__pwned = 1</script>";
const closing = "</script><script>window.__pwned = 2</script><!--";
const markup = "<img src=x onerror=\"window.__pwned = 3\">";
const scenario = {
  name: "hostile-page",
  description: "A story " + injected + " " + closing,
  clients: [{
    name: "C1",
    algorithm: {
      lua_inline: [
        "redis.call('SET', " + JSON.stringify(markup) + ", " + JSON.stringify(injected) + ")",
        "lock.because(" + JSON.stringify(closing) + ")",
        "redis.call('GET', 'lock.foo')",
      ].join("\n") + "\n",
    },
  }],
  lock: { key: "lock.foo" },
  clock: { horizon: 1 },
  expect: "safe",
};

const dir = mkdtempSync(join(tmpdir(), "lockstep-hostile-"));
let browser;
try {
  const scenario_file = join(dir, "hostile.json");
  writeFileSync(scenario_file, JSON.stringify(scenario));
  const page_file = join(dir, "game.html");
  execFileSync(lockstep, ["render", scenario_file, "--play-html", page_file], { stdio: "inherit" });

  browser = await chromium.launch({
    executablePath: process.env.LOCKSTEP_CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox"],  // CI runs as root
  });
  const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
  const fetched = [];
  page.on("request", (r) => { if (!r.url().startsWith("file://")) fetched.push(r.url()); });
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  const dialogs = [];
  page.on("dialog", async (d) => { dialogs.push(d.message()); await d.dismiss(); });
  await page.goto("file://" + page_file);

  check((await page.textContent("#title")) === "Be the scheduler: hostile-page", "the title");
  const body = await page.textContent("body");
  check(body.includes(injected) && body.includes(closing), "the description shows as text");
  for (const move of ["C1", "C1"]) {
    await page.click(`button.move[data-action="${move}"]`);
  }
  const lanes = await page.textContent("#lanes");
  check(lanes.includes(closing), "the reason shows as text");
  check(lanes.includes(markup) && lanes.includes(injected), "the key and value show as text");
  check(await page.evaluate(() => window.__pwned === undefined), "no injected script ran");
  check(dialogs.length === 0, "no dialog: " + dialogs.join(", "));
  check(fetched.length === 0, "nothing fetched: " + fetched.join(", "));
  check(errors.length === 0, "no script errors: " + errors.join("; "));
} catch (e) {
  failures.push(String(e && e.stack || e));
  console.log("FAILED " + e);
} finally {
  if (browser) await browser.close();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(failures.length === 0 ? 0 : 1);

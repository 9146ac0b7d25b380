// The scheduler game's page in a real browser: Debian's chromium, headless,
// driven by playwright-core. Writes the documented race's game with
// `lockstep render --play-html`, asks for the hint, plays the race to the
// violation, checks what the page says, undoes, and checks a screenshot of
// the lanes is not blank. Nothing may be fetched.
//
//   node game_test.mjs LOCKSTEP SCENARIO OUT_DIR
//
// Exits 0 iff every check holds; prints each failure.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inflateSync } from "node:zlib";
import { chromium } from "playwright-core";

const [lockstep, scenario] = process.argv.slice(2);
const failures = [];
function check(ok, what) {
  if (!ok) failures.push(what);
  console.log((ok ? "ok     " : "FAILED ") + what);
}

// The distinct colours of a PNG (8-bit RGB or RGBA, as Chromium writes).
function coloursOf(png) {
  const width = png.readUInt32BE(16), height = png.readUInt32BE(20);
  const depth = png[24], type = png[25];
  if (depth !== 8 || (type !== 2 && type !== 6)) throw new Error("unexpected PNG type");
  const channels = type === 6 ? 4 : 3;
  const chunks = [];
  for (let at = 8; at < png.length;) {
    const length = png.readUInt32BE(at), kind = png.toString("ascii", at + 4, at + 8);
    if (kind === "IDAT") chunks.push(png.subarray(at + 8, at + 8 + length));
    at += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(chunks));
  const stride = width * channels;
  const rows = [];
  let previous = Buffer.alloc(stride);
  for (let y = 0; y < height; ++y) {
    const filter = raw[y * (stride + 1)];
    const line = Buffer.from(raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1)));
    for (let i = 0; i < stride; ++i) {
      const a = i >= channels ? line[i - channels] : 0, b = previous[i];
      const c = i >= channels ? previous[i - channels] : 0;
      let predictor = 0;
      if (filter === 1) predictor = a;
      else if (filter === 2) predictor = b;
      else if (filter === 3) predictor = (a + b) >> 1;
      else if (filter === 4) {
        const p = a + b - c, pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
        predictor = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      }
      line[i] = (line[i] + predictor) & 0xff;
    }
    rows.push(line);
    previous = line;
  }
  const colours = new Set();
  for (const line of rows) {
    for (let x = 0; x < width; ++x) {
      colours.add(line.readUIntBE(x * channels, 3));
    }
  }
  return colours.size;
}

const dir = mkdtempSync(join(tmpdir(), "lockstep-game-"));
let browser;
try {
  const page_file = join(dir, "game.html");
  execFileSync(lockstep, ["render", scenario, "--play-html", page_file], { stdio: "inherit" });

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
  await page.goto("file://" + page_file);

  check((await page.textContent("#title")) === "Be the scheduler: setnx-docs-race", "the title");
  check((await page.locator("#outcome").isVisible()) === false, "no outcome before any move");

  // The answer stays hidden until asked for.
  check((await page.textContent("#hint")) === "", "the hint is hidden");
  await page.click("#hint-button");
  const hint = await page.textContent("#hint");
  check(/^A violation is \d+ steps away\. Try C[12]\.$/.test(hint), "the hint: " + hint);

  const race = ["C1", "C2", "C1", "C2", "C1", "C1", "C2", "C2"];
  for (const move of race) {
    await page.click(`button.move[data-action="${move}"]`);
  }
  const outcome = await page.textContent("#outcome");
  check(await page.locator("#outcome").isVisible(), "the outcome is shown");
  check(outcome.includes("You broke the lock."), "you broke the lock: " + outcome);
  check(outcome.includes("mutual_exclusion at step 8"), "mutual_exclusion at step 8");
  check(outcome.includes(race.join(" ")), "the story so far names the moves");
  check((await page.locator("button.move").count()) === 0, "no moves once the lock is broken");

  // The lanes: a row per step, the reasons and the source lines in them.
  const lanes = await page.textContent("#lanes");
  check((await page.locator("#lanes tr").count()) === race.length + 2, "a row per step");
  check(lanes.includes("\"7\" < my clock 10: expired; take it over with DEL, then SETNX"),
        "the reasons are in the lanes");
  check(lanes.includes("setnx_takeover.cc:"), "the source lines are in the lanes");
  check((await page.locator("tr.violating").count()) === 1, "the violating row is marked");

  // Beside the lanes, each client's current line in its algorithm.
  const here = await page.textContent('#code pre[data-client="C2"] span.here');
  check(here !== null && here.includes("c.SetNx(s.key, stamp)"), "C2's current line: " + here);
  check((await page.locator("#code h3").count()) === 2, "a source excerpt per client that moved");

  const shot = await page.locator("#lanes").screenshot();
  const colours = coloursOf(shot);
  check(colours >= 8, "the lanes' screenshot is not blank (" + colours + " colours)");

  await page.click("#undo");
  check((await page.locator("#outcome").isVisible()) === false, "undo takes the violation back");
  check((await page.locator('button.move[data-action="C2"]').count()) === 1, "and offers C2 again");
  await page.click("#restart");
  check((await page.locator("#lanes tr").count()) === 2, "restart goes back to the start");

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

// The scheduler game's page in a real browser: Debian's chromium, headless,
// driven by playwright-core. Writes the documented race's game with
// `lockstep render --play-html`, checks the goal comes first and the story
// only after the end, asks for the hint, plays the race to the violation by
// the keyboard, checks the moves in words, each client's next line, the
// debrief, the layout at 1366 and 390 px (every lane and the keyspace on
// screen, screenshots not blank), undoes; then plays the GETSET fix, which
// cannot be broken, to an end and checks it is a win. Nothing may be fetched.
//
// Last, the translator's question (C4's stale GETSET over C5's lock) is
// played to its violation and laid out at both widths.
//
//   node game_test.mjs LOCKSTEP SCENARIO FIX_SCENARIO TRANSLATOR_SCENARIO
//
// Exits 0 iff every check holds; prints each failure.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inflateSync } from "node:zlib";
import { chromium } from "playwright-core";

const [lockstep, scenario, fixScenario, translatorScenario] = process.argv.slice(2);
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

// At a laptop's and a phone's width, every lane and the keyspace are on
// screen, before the moves, with no inner scroll and nothing cut.
async function checkLayout(page, game, columns) {
  for (const [width, height] of [[1366, 768], [390, 844]]) {
    await page.setViewportSize({ width, height });
    const boxes = await page.$$eval("#lanes th", (ths) => ths.map((t) => {
      const r = t.getBoundingClientRect();
      return { text: t.textContent, left: r.left, right: r.right, width: r.width };
    }));
    const names = boxes.map((b) => b.text).join(", ");
    check(boxes.length === columns && boxes.every((b) => b.left >= 0 && b.right <= width && b.width >= 20),
          `${game} at ${width} px every lane and the keyspace are on screen (${names}: ` +
          boxes.map((b) => Math.round(b.left) + "-" + Math.round(b.right)).join(" ") + ")");
    const scroll = await page.evaluate(() => [document.documentElement.scrollWidth,
        document.querySelector("div.main").scrollWidth, document.querySelector("div.main").clientWidth]);
    check(scroll[0] <= width && scroll[1] <= scroll[2], `${game} at ${width} px nothing scrolls sideways (${scroll})`);
    const lanesTop = (await page.locator("#lanes").boundingBox()).y;
    const movesTop = (await page.locator("#status").boundingBox()).y;
    const lanesLeft = (await page.locator("#lanes").boundingBox()).x;
    const movesLeft = (await page.locator("#status").boundingBox()).x;
    check(lanesTop < movesTop || lanesLeft < movesLeft, `${game} at ${width} px the lanes come first`);
    const keyspace = await page.locator("#lanes tr:last-child td.keyspace").boundingBox();
    check(keyspace.x + keyspace.width <= width && keyspace.width >= 20,
          `${game} at ${width} px the keyspace after the last step is on screen`);
    const colours = coloursOf(await page.screenshot());
    check(colours >= 8, `${game} at ${width} px the page's screenshot is not blank (${colours} colours)`);
  }
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
  const goal = await page.textContent("#goal");
  check(await page.locator("#goal").isVisible() &&
        goal === "Your goal: Make two clients hold the lock (be in the critical section) at once.",
        "the goal is shown first: " + goal);
  check(!(await page.locator("#description").isVisible()), "the story is hidden before the end");

  // Moves in words; each client's next line, not its last.
  const first = await page.textContent('button.move[data-action="C1"]');
  check(first === "C1: SETNX lock.foo 13", "C1's move in words: " + first);
  const nextLine = async (c) => {
    const here = await page.textContent(`#code pre[data-client="${c}"] span.here`);
    return here === null ? null : Number(here.trim().split(" ")[0]);
  };
  const sourceLine = (m) => Number(m.source.slice(m.source.lastIndexOf(":") + 1));
  const movesNow = () => page.evaluate(() => current().moves);
  let moves = await movesNow();
  check((await nextLine("C1")) === sourceLine(moves.find((m) => m.action === "C1")),
        "C1's next line is highlighted before it moves");

  // The answer stays hidden until asked for.
  check((await page.textContent("#hint")) === "", "the hint is hidden");
  await page.click("#hint-button");
  const hint = await page.textContent("#hint");
  check(/^A violation is 8 steps away\. Try C[12]: SETNX lock\.foo 13\.$/.test(hint), "the hint, in words: " + hint);

  // The race, played by the keyboard: 1 is C1, 2 is C2.
  const race = ["C1", "C2", "C1", "C2", "C1", "C1", "C2", "C2"];
  const labels = [];
  for (const [k, move] of race.entries()) {
    moves = await movesNow();
    labels[k] = await page.textContent(`button.move[data-action="${move}"]`);
    await page.keyboard.press(move.slice(1));
    if (k === 0) {
      moves = await movesNow();
      const ran = await page.evaluate(() => taken[0].source);
      check((await nextLine("C1")) === sourceLine(moves.find((m) => m.action === "C1")) &&
            sourceLine(moves.find((m) => m.action === "C1")) !== sourceLine({ source: ran }),
            "after its GET, C1's next line is highlighted, not the one it ran");
    }
  }
  check(labels[2] === "C1: GET lock.foo", "the moves are labelled: " + labels.join(" | "));
  // A step whose clock-based arguments were read earlier (the translator's
  // question), as the page labels it.
  const stale = await page.evaluate(() => moveLabel(
      { action: "C2~1", command: "GETSET lock.foo 13", events: [] }));
  check(stale === "C2, with a timestamp read 1 tick ago: GETSET lock.foo 13", "a stale move: " + stale);
  const outcome = await page.textContent("#outcome");
  check(await page.locator("#outcome").isVisible(), "the outcome is shown");
  check(outcome.includes("You broke the lock."), "you broke the lock: " + outcome);
  check(outcome.includes("mutual_exclusion at step 8"), "mutual_exclusion at step 8");
  check(outcome.includes(race.join(" ")), "the story so far names the moves");
  check((await page.locator("button.move").count()) === 0, "no moves once the lock is broken");
  check(outcome.includes("How it happened:"), "the debrief is shown");
  for (const line of ["Step 4: C2 read lock.foo = \"7\", written by C3.",
                      "Step 5: C1's DEL removed C3's lock on lock.foo.",
                      "Step 7: C2's DEL removed C1's lock on lock.foo.",
                      "C1 enters the critical section, believing it held the lock",
                      "C2 enters the critical section, believing it held the lock"]) {
    check(outcome.includes(line), "the debrief says: " + line);
  }
  check(await page.locator("#description").isVisible(), "the story opens after the end");

  await checkLayout(page, "the race", 6);
  await page.setViewportSize({ width: 1600, height: 1000 });

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

  await page.keyboard.press("u");
  check((await page.locator("#outcome").isVisible()) === false, "u undoes the violation");
  check((await page.locator('button.move[data-action="C2"]').count()) === 1, "and offers C2 again");
  await page.click("#restart");
  check((await page.locator("#lanes tr").count()) === 2, "restart goes back to the start");
  check(!(await page.locator("#description").isVisible()), "and hides the story again");

  // The GETSET fix cannot be broken: an end is a win, and says so.
  const fix_file = join(dir, "fix.html");
  execFileSync(lockstep, ["render", fixScenario, "--play-html", fix_file], { stdio: "inherit" });
  await page.goto("file://" + fix_file);
  check((await page.textContent("#goal")).startsWith("Your goal: Try to break the fix"),
        "the fix's goal is to try to break it");
  const offered = new Set();
  for (let k = 0; k < 500 && (await page.locator("button.move").count()) > 0; ++k) {
    for (const l of await page.locator("button.move").allTextContents()) offered.add(l);
    await page.click("button.move >> nth=0");
  }
  const said = [...offered];
  check(said.includes("C4: leave the critical section"), "leaving is said in words: " + said.join(" | "));

  const win = await page.textContent("#outcome");
  check(await page.locator("#outcome.win").isVisible(), "an end of the fix's game is a win");
  check(win.includes("You win: you can't break this one.") && win.includes("no violation reachable"),
        "the win says the fix cannot be broken: " + win);

  // The translator's question: three lanes, C4's stale GETSET in words.
  const translator_file = join(dir, "translator.html");
  execFileSync(lockstep, ["render", translatorScenario, "--play-html", translator_file],
               { stdio: "inherit" });
  await page.goto("file://" + translator_file);
  const schedule = ["C4", "C4", "C5", "C5", "tick", "C5", "C4~1", "C4", "tick", "tick", "tick", "C4", "C4"];
  for (const move of schedule) {
    if (move === "C4~1") {
      const said = await page.textContent('button.move[data-action="C4~1"]');
      check(said.startsWith("C4, with a timestamp read 1 tick ago: GETSET "), "C4's stale move: " + said);
    }
    await page.click(`button.move[data-action="${move}"]`);
  }
  const told = await page.textContent("#outcome");
  check(told.includes("C4's GETSET replaced C5's lock on "), "the translator's debrief: " + told);
  await checkLayout(page, "the translator's question", 6);

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

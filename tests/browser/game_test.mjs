// The scheduler game's page in a real browser: Debian's chromium, headless,
// driven by playwright-core. Writes the documented race's game with
// `lockstep render --play-html`, checks the goal comes first and the story
// only after the end, asks for the hint, plays the race to the violation by
// the keyboard, checks the moves in words, each client's next line, the
// debrief, the layout at 1366 and 390 px (every lane and the keyspace on
// screen, screenshots without a blank band over the lanes), undoes; then
// plays the GETSET fix, which cannot be broken, to an end and checks it is a
// win. Then the translator's question (C4's stale GETSET over C5's lock) is
// played to its violation and laid out at both widths.
//
// Last, the course: `lockstep render --course` with the shipped course file;
// from the index every level is opened by its link, its goal and challenge
// read before play, played by the keyboard along a shortest break (in as
// many moves as the challenge says) to its debrief, or to an end and a win
// on the level no schedule breaks, laid out at both widths, and followed to
// the next level. Every request is routed: any that is not file:// fails.
//
// Then the same course in Chinese (`--lang zh`), every level played the same
// way at both widths: the goal, the level, the challenge, the debrief and
// the win in Chinese, the why-lines in the lanes in Chinese, and the CJK
// glyphs really drawn by the font the page names (not boxes).
//
//   node game_test.mjs LOCKSTEP SCENARIO FIX_SCENARIO TRANSLATOR_SCENARIO COURSE_FILE
//
// Exits 0 iff every check holds; prints each failure.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inflateSync } from "node:zlib";
import { chromium } from "playwright-core";

const [lockstep, scenario, fixScenario, translatorScenario, courseFile] = process.argv.slice(2);
const failures = [];
function check(ok, what) {
  if (!ok) failures.push(what);
  console.log((ok ? "ok     " : "FAILED ") + what);
}

// A PNG's pixels (8-bit RGB or RGBA, as Chromium writes): each row's
// colours as 0xRRGGBB.
function decodePng(png) {
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
  return { width, height, colour: (x, y) => rows[y].readUIntBE(x * channels, 3) };
}

// The distinct colours of a PNG.
function coloursOf(png) {
  const colours = new Set();
  const { width, height, colour } = decodePng(png);
  for (let y = 0; y < height; ++y) for (let x = 0; x < width; ++x) colours.add(colour(x, y));
  return colours.size;
}

// The distinct colours in a rectangle of a PNG. Text is drawn
// anti-aliased, in many shades; an empty cell is its background and its
// borders, a few.
function coloursIn(image, box) {
  const { width, height, colour } = image;
  const x0 = Math.max(0, Math.ceil(box.x)), x1 = Math.min(width, Math.floor(box.x + box.width));
  const y0 = Math.max(0, Math.ceil(box.y)), y1 = Math.min(height, Math.floor(box.y + box.height));
  const colours = new Set();
  for (let y = y0; y < y1; ++y) for (let x = x0; x < x1; ++x) colours.add(colour(x, y));
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
    const shot = await page.screenshot();
    const colours = coloursOf(shot);
    check(colours >= 8, `${game} at ${width} px the page's screenshot is not blank (${colours} colours)`);
    // The lanes below their headings, down to their end or the screen's, in
    // bands 48 px high across the whole table: each draws something (text
    // in many shades), none is a blank rectangle.
    const lanes = await page.locator("#lanes").boundingBox();
    const head = await page.locator("#lanes th >> nth=0").boundingBox();
    const bottom = Math.min(lanes.y + lanes.height, height);
    const image = decodePng(shot);
    const blank = [];
    let bands = 0;
    for (let y = head.y + head.height + 2; y + 24 <= bottom; y += 48, ++bands) {
      const box = { x: lanes.x + 2, width: lanes.width - 4, y, height: Math.min(48, bottom - y) };
      const n = coloursIn(image, box);
      if (n < 8) blank.push(`${Math.round(y)}-${Math.round(y + box.height)}: ${n} colours`);
    }
    check(bands >= 3 && blank.length === 0,
          `${game} at ${width} px no band of the lanes is blank (${bands} bands; ${blank.join(", ")})`);
  }
}

// What a course's pages say in each language, as a reader reads it.
const courseWords = {
  en: {
    level: (k, n) => `Level ${k} of ${n}`,
    goal: "Your goal: ",
    win: "You win: you can't break this one.",
    how: "How it happened:",
    met: "Challenge met",
    atMost: (n) => `at most ${n} moves`,
  },
  zh: {
    level: (k, n) => `第 ${k} 关（共 ${n} 关）`,
    goal: "你的目标：",
    win: "你赢了：这一关攻不破。",
    how: "经过如下：",
    met: "挑战完成",
    atMost: (n) => `最多用 ${n} 步`,
  },
};

// Whether the page draws Chinese with real glyphs in its own font stack: two
// different ideographs drawn on a canvas both leave ink and differ (a font
// without them draws the same box for both, or nothing).
async function drawsChinese(page) {
  return page.evaluate(() => {
    const family = getComputedStyle(document.body).fontFamily;
    const ink = (text) => {
      const canvas = document.createElement("canvas");
      canvas.width = 40; canvas.height = 40;
      const g = canvas.getContext("2d");
      g.font = "32px " + family;
      g.fillStyle = "#000";
      g.fillText(text, 2, 32);
      return Array.from(g.getImageData(0, 0, 40, 40).data.filter((v, i) => i % 4 === 3));
    };
    const a = ink("锁"), b = ink("钟");
    const inked = (p) => p.filter((v) => v > 0).length;
    return { family, inkA: inked(a), inkB: inked(b), differ: a.some((v, i) => v !== b[i]),
             fontReady: document.fonts.check("16px \"WenQuanYi Micro Hei\"", "锁") };
  });
}

// The shipped course: every level from the index, played to its end, in
// `language`.
async function playCourse(page, site, language) {
  const say = courseWords[language];
  execFileSync(lockstep, ["render", "--course", site, "--levels", courseFile, "--lang", language],
               { stdio: "inherit" });
  await page.setViewportSize({ width: 1366, height: 768 });
  await page.goto("file://" + join(site, "index.html"));
  const levels = await page.locator("li.level a").count();
  check(levels === 5, `the course's index (${language}) lists its five levels: ` + levels);
  const htmlLang = await page.getAttribute("html", "lang");
  check(htmlLang === language, `the index says its language: ${htmlLang}`);
  const challenges = await page.locator("li.level p.challenge").allTextContents();
  let unbreakable = 0;
  for (let k = 0; k < levels; ++k) {
    if (k === 0) {  // later levels: the previous one's link
      await page.click("li.level a >> nth=0");
      await page.waitForURL((url) => url.href.endsWith("level-1.html"), { waitUntil: "load" });
    }
    const name = `level ${k + 1} (${language})`;
    check(page.url().endsWith(`level-${k + 1}.html`), `${name} opens from its link: ${page.url()}`);
    check((await page.textContent("#level")) === say.level(k + 1, levels), `${name} says where it stands`);
    // The goal and the challenge first, nothing told yet.
    const goal = await page.textContent("#goal");
    check(await page.locator("#goal").isVisible() && goal.startsWith(say.goal) &&
          /[\u4e00-\u9fff]/.test(goal) === (language === "zh"), `${name}'s goal is shown first: ${goal}`);
    if (language === "zh") {
      const drawn = await drawsChinese(page);
      check(drawn.family.includes("WenQuanYi Micro Hei") && drawn.fontReady && drawn.inkA > 20 &&
            drawn.inkB > 20 && drawn.differ, `${name} draws Chinese glyphs: ${JSON.stringify(drawn)}`);
    }
    const challenge = await page.textContent("#challenge");
    check(await page.locator("#challenge").isVisible() && challenge === challenges[k],
          `${name}'s challenge is the index's: ${challenge}`);
    check(!(await page.locator("#outcome").isVisible()) && !(await page.locator("#description").isVisible()),
          `${name} tells nothing before play`);
    const game = await page.evaluate(() => ({ clients: game.clients, shortest: game.course.shortest }));
    // Along a shortest break: a move that breaks, or one a step nearer;
    // by the keyboard when a key names it.
    let moves = 0, keys = 0;
    for (; moves < 500 && (await page.locator("button.move").count()) > 0; ++moves) {
      const action = await page.evaluate(() => {
        const here = current();
        const best = here.moves.find((m) => m.violation) ||
            here.moves.find((m) => here.distance !== null && game.states[m.to].distance === here.distance - 1) ||
            here.moves[0];
        return best.action;
      });
      const client = game.clients.indexOf(action);
      if (client >= 0 && client < 8) {
        await page.keyboard.press(String(client + 1));
        ++keys;
      } else if (action === "tick") {
        await page.keyboard.press("t");
        ++keys;
      } else {
        await page.click(`button.move[data-action="${action}"]`);
      }
    }
    check(keys > 0, `${name} is played by the keyboard (${keys} of ${moves} moves)`);
    const outcome = await page.textContent("#outcome");
    if (game.shortest === null) {
      ++unbreakable;
      check(await page.locator("#outcome.win").isVisible() && outcome.includes(say.win),
            `${name} cannot be broken: an end is a win: ${outcome}`);
    } else {
      check(moves === game.shortest && challenge.includes(say.atMost(moves)),
            `${name} breaks in the challenge's ${game.shortest} moves: ${moves}`);
      check(outcome.includes(say.how) && (await page.locator("#outcome ol li").count()) > 0,
            `${name} ends with the debrief: ${outcome}`);
      check((await page.textContent("#challenge-result")).startsWith(say.met), `${name}'s challenge is met`);
    }
    if (language === "zh") {
      // Every why-line and event in the lanes is shown in Chinese: each has
      // an ideograph (the algorithms are lockstep's own, all translated).
      const said = await page.$$eval("#lanes .why, #lanes .events", (d) => d.map((e) => e.textContent));
      const english = said.filter((t) => !/[\u4e00-\u9fff]/.test(t));
      check(said.length > 0 && english.length === 0,
            `${name}'s why-lines and events are in Chinese (${said.length}): ${english.join(" | ")}`);
    }
    check(await page.locator("#description").isVisible(), `${name}'s story opens after the end`);
    await checkLayout(page, name, game.clients.length + 3);
    await page.setViewportSize({ width: 1366, height: 768 });
    const next = k + 1 < levels ? `level-${k + 2}.html` : "index.html";
    await page.click("#outcome a");
    await page.waitForURL((url) => url.href.endsWith(next), { waitUntil: "load" });
    check(page.url().endsWith(next), `${name} leads on: ${page.url()}`);
  }
  check(unbreakable === 1, "one level cannot be broken: " + unbreakable);
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
  // Every request goes through here: a page may load only its own file.
  const fetched = [];
  await page.route("**/*", (route) => {
    const url = route.request().url();
    if (url.startsWith("file://")) return route.continue();
    fetched.push(url);
    return route.abort();
  });
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

  await playCourse(page, join(dir, "course"), "en");
  await playCourse(page, join(dir, "course-zh"), "zh");

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

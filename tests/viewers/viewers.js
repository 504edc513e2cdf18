// Opens flamebpf's outputs in the viewers people use, in headless Chromium,
// and checks what the viewer made of them against flamebpf's own folded
// output of the same profile:
//   speedscope (npm "speedscope", its built web app): folded, perf script and
//     Chrome JSON, loaded through its #profileURL= hash or its file import;
//     the profile's name in the toolbar, no error screen, and the profile
//     speedscope exports (its own JSON) holding the same threads, frames
//     and stacks;
//   flamebpf's SVG: hover shows details, click zooms, Reset Zoom, search
//     highlights and gives the matched share, the state in the URL;
//   flamebpf's HTML report: the heatmap of build/workloads/phases (its
//     spikes the darkest cells of their columns), a range selected by
//     dragging (the first 2 s hold phase_a and no phase_b), hover, click
//     zoom and reset, search with the matched share, the table's sorting,
//     time off the CPU (build/workloads/offcpu) spread over the cells, the
//     view kept in the URL's hash, the sandwich of a function (cpu_tree's
//     burn: its callers tree_a and tree_c), the process picker (a
//     system-wide capture while cpu_tree runs), the diff page, the timeline
//     of a thread (calls nested as they ran, samples merged into runs, a
//     probe's hits with their arguments: build/workloads/usdt_work; --wall
//     samples drawn over the period before them, offcpu's compute whole),
//     and not one request beyond the page itself.
// Perfetto and chrome://tracing cannot be run here: they are reported as
// skipped with the reason.
//
// Inputs: tests/data/perf-real-cpuclock.perf rendered by FLAMEBPF into every
// format, and, when BPF is allowed, a sampling and a uprobe capture of
// build/workloads/cpu_tree. Prints cmocka's summary lines, which
// tests/run.sh adds up.
//
//   node tests/viewers/viewers.js [TEST...]
//   FLAMEBPF (build/flamebpf), VIEWERS_MODULES (build/viewers/node_modules),
//   CHROMIUM (/usr/bin/chromium), VIEWERS_OUT (build/tests/viewers)
"use strict";
const assert = require("assert");
const { execFileSync } = require("child_process");
const fs = require("fs");
const http = require("http");
const path = require("path");

const ROOT = path.resolve(__dirname, "../..");
const FLAMEBPF = path.resolve(ROOT, process.env.FLAMEBPF || "build/flamebpf");
const MODULES = path.resolve(ROOT, process.env.VIEWERS_MODULES || "build/viewers/node_modules");
const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
const OUT = path.resolve(ROOT, process.env.VIEWERS_OUT || "build/tests/viewers");
const WORKLOAD = path.join(ROOT, "build/workloads/cpu_tree");
const PHASES = path.join(ROOT, "build/workloads/phases");
const OFFCPU = path.join(ROOT, "build/workloads/offcpu");
const USDT = path.join(ROOT, "build/workloads/usdt_work");
const SPEEDSCOPE = path.join(MODULES, "speedscope/dist/release");
const TIMEOUT_MS = 30000;
const HIGHLIGHT = "rgb(230,0,230)";

class Skip extends Error {}

// ---- profiles ----

function flamebpf(args) {
	return execFileSync(FLAMEBPF, args, { stdio: ["ignore", "pipe", "pipe"], timeout: 60000 });
}

// "ROOT;f1;...;leaf COUNT" lines into a Map of stack -> count.
function readFolded(file) {
	const m = new Map();
	for (const line of fs.readFileSync(file, "utf8").split("\n")) {
		if (!line)
			continue;
		const sp = line.lastIndexOf(" ");
		m.set(line.slice(0, sp), (m.get(line.slice(0, sp)) || 0) + Number(line.slice(sp + 1)));
	}
	return m;
}

// By thread: "COMM-PID/TID" roots (--tids) -> Map of the stack under it -> count.
// A root COMM-PID/TID of --tids output; PID "?" when the input had none
// (perf script's default fields).
function rootIds(root) {
	const m = /^(.*)-(\d+|\?)\/(\d+)$/.exec(root);
	assert.ok(m, `root '${root}' is not COMM-PID/TID`);
	return { comm: m[1], pid: m[2], tid: m[3] };
}

function byThread(folded) {
	const t = new Map();
	for (const [stack, n] of folded) {
		const cut = stack.indexOf(";");
		const root = cut < 0 ? stack : stack.slice(0, cut);
		if (!t.has(root))
			t.set(root, new Map());
		if (cut >= 0)
			t.get(root).set(stack.slice(cut + 1), n);
	}
	return t;
}

// A profile set: NAME.folded, NAME.perf, NAME.json, NAME.svg of one
// profile, and NAME-tids.folded from the format that holds the ids.
function makeSet(name, make, idsFrom) {
	const base = path.join(OUT, name);
	make(base);
	flamebpf(["render", base + idsFrom, "--tids", "-o", base + "-tids.folded"]);
	return {
		name,
		base,
		folded: readFolded(base + ".folded"),
		threads: byThread(readFolded(base + "-tids.folded")),
	};
}

function fromData(base) {
	const input = path.join(ROOT, "tests/data/perf-real-cpuclock.perf");
	for (const ext of [".folded", ".perf", ".json", ".svg", ".html"])
		flamebpf(["render", input, "-o", base + ext]);
}

// A capture needs BPF: a set that cannot be made is a reason to skip.
function tryCapture(name, make, idsFrom) {
	try {
		return makeSet(name, make, idsFrom);
	} catch (e) {
		const why = (e.stderr ? e.stderr.toString() : e.message).trim().split("\n").pop();
		return { name, skip: `no ${name} capture: ${why}` };
	}
}

function fromSampling(base) {
	flamebpf(["-F", "999", "-o", base + ".folded", "-o", base + ".perf", "-o", base + ".json",
		  "-o", base + ".svg", "--", WORKLOAD, "0.3"]);
}

// phases: 4 s, the spikes at +0.5 s of every second (tests/workloads/phases.c).
function fromPhases(base) {
	flamebpf(["-F", "999", "-o", base + ".folded", "-o", base + ".perf", "-o", base + ".html",
		  "--", PHASES, "4"]);
}

// offcpu: 12 rounds of 10 ms on the CPU and 95 ms off it (tests/workloads/offcpu.c).
function fromOffcpu(base) {
	flamebpf(["--off-cpu", "-o", base + ".folded", "-o", base + ".perf", "-o", base + ".html",
		  "--", OFFCPU, "12"]);
}

// wall: offcpu's rounds under --wall at 99 Hz, about a sample for each
// compute (10 ms on the CPU between blocks).
function fromWall(base) {
	flamebpf(["--wall", "-F", "99", "-o", base + ".folded", "-o", base + ".perf",
		  "-o", base + ".html", "--", OFFCPU, "12"]);
}

// Every process while cpu_tree runs (-a): a capture with several.
function fromSystem(base) {
	flamebpf(["-F", "999", "-a", "-o", base + ".folded", "-o", base + ".perf", "-o", base + ".html",
		  "--", WORKLOAD, "0.5"]);
}

function fromUprobes(base) {
	flamebpf(["-f", "^(tree_.|burn)$", "-o", base + ".folded", "-o", base + ".json",
		  "-o", base + ".svg", "-o", base + ".html", "--", WORKLOAD, "0.3"]);
}

// work:guarded hits 200 times, its arg1 1 to 200 (how many it saw).
function fromUsdt(base) {
	flamebpf(["-f", "usdt::^work:guarded", "-o", base + ".folded", "-o", base + ".json",
		  "-o", base + ".html", "--", USDT, "200"]);
}

// ---- the browser side ----

function serve() {
	const types = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css",
			".svg": "image/svg+xml", ".json": "application/json", ".wasm": "application/wasm" };
	const server = http.createServer((req, res) => {
		const url = decodeURIComponent(req.url.split(/[?#]/)[0]);
		if (url === "/favicon.ico") {
			res.writeHead(204);
			res.end();
			return;
		}
		const [dir, rel] = url.startsWith("/data/") ? [OUT, url.slice(6)]
			: url.startsWith("/speedscope/") ? [SPEEDSCOPE, url.slice(12)] : [null, null];
		const file = dir && path.resolve(dir, rel);
		if (!file || !file.startsWith(dir + path.sep) || !fs.existsSync(file)) {
			res.writeHead(404);
			res.end();
			return;
		}
		res.writeHead(200, { "Content-Type": types[path.extname(file)] || "text/plain" });
		fs.createReadStream(file).pipe(res);
	});
	return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

// A page that collects the script errors of the document it shows.
async function newPage(browser) {
	const page = await browser.newPage({ acceptDownloads: true });
	page.errors = [];
	page.misnested = [];
	page.on("pageerror", (e) => page.errors.push(e.message));
	page.on("console", (m) => {
		if (m.type() === "error")
			page.errors.push(m.text());
		else if (/Tried to end/.test(m.text()))
			page.misnested.push(m.text());
	});
	page.setDefaultTimeout(TIMEOUT_MS);
	return page;
}

// ---- speedscope ----

// Waits for a profile to show, or for speedscope's error screen, alert or
// script error.
async function speedscopeLoaded(page, what) {
	const until = Date.now() + TIMEOUT_MS;
	let text = "";

	while (!page.errors.length && !/Something went wrong|Export/.test(text)) {
		assert.ok(Date.now() < until, `speedscope showed nothing of ${what}`);
		await page.waitForTimeout(100);
		text = await page.innerText("body");
	}
	assert.ok(!/Something went wrong/.test(text), `speedscope could not import ${what}: ` +
		  page.errors.join("; "));
	assert.deepStrictEqual(page.errors, [], `script errors while importing ${what}`);
	return text.split("\n")[1]; /* the toolbar: view tabs, the profile's name, buttons */
}

// speedscope tells some failures in an alert.
function alertsAreErrors(page) {
	page.on("dialog", (d) => {
		page.errors.push(`alert: ${d.message()}`);
		d.dismiss();
	});
}

async function speedscopeByURL(page, port, file) {
	alertsAreErrors(page);
	await page.goto(`http://127.0.0.1:${port}/speedscope/index.html#profileURL=` +
			encodeURIComponent(`/data/${file}`));
	return speedscopeLoaded(page, file);
}

async function speedscopeByImport(page, port, file) {
	alertsAreErrors(page);
	await page.goto(`http://127.0.0.1:${port}/speedscope/index.html`);
	await page.setInputFiles("input[type=file]", path.join(OUT, file));
	return speedscopeLoaded(page, file);
}

async function speedscopeExport(page) {
	const [download] = await Promise.all([page.waitForEvent("download"), page.click("text=Export")]);
	return JSON.parse(fs.readFileSync(await download.path(), "utf8"));
}

// An exported profile's stacks -> weight, frames named by name(frame). An
// evented profile is replayed (a stack's weight is the time it was on
// top); a leaf shown for no time (a thread's last sample) still counts, 0.
function exportedStacks(profile, frames, name) {
	const m = new Map(), stack = [];
	const key = () => stack.map((i) => name(frames[i])).join(";");
	const add = (w) => m.set(key(), (m.get(key()) || 0) + w);
	if (profile.type === "sampled") {
		profile.samples.forEach((s, i) => {
			stack.splice(0, stack.length, ...s);
			add(profile.weights[i]);
		});
		return m;
	}
	let last = profile.startValue, prev = null;
	for (const e of profile.events) {
		if (stack.length && (e.at > last || (prev === "O" && e.type === "C")))
			add(e.at - last);
		last = e.at;
		prev = e.type;
		if (e.type === "O")
			stack.push(e.frame);
		else
			stack.pop();
	}
	return m;
}

function sorted(it) {
	return [...it].sort();
}

// folded in, folded out: speedscope must hold exactly the same stacks,
// weights and frames (its collapsed-stack import names frames as they are).
async function checkFolded(browser, port, set) {
	const page = await newPage(browser);
	const file = set.name + ".folded";
	const title = await speedscopeByURL(page, port, file);
	assert.ok(title.includes(file), `toolbar '${title}' does not name ${file}`);
	const ex = await speedscopeExport(page);
	assert.strictEqual(ex.profiles.length, 1);
	const got = exportedStacks(ex.profiles[0], ex.shared.frames, (f) => f.name);
	assert.deepStrictEqual(sorted(got), sorted(set.folded), "speedscope's stacks differ");
	const names = new Set([...set.folded.keys()].flatMap((s) => s.split(";")));
	assert.strictEqual(ex.shared.frames.length, names.size, "number of frames");
}

// speedscope names a perf frame after its symbol, without the offset, and a
// frame without one "??? (DSO)"; flamebpf's folded marks kernel frames _[k].
function perfFrameName(f) {
	const name = f.name.startsWith("??? (") ? "[unknown]" : f.name;
	return f.file === "[kernel.kallsyms]" ? name + "_[k]" : name;
}

// The stacks speedscope shows of each thread must be the thread's stacks in
// flamebpf's folded output, all of them, bar possibly its last sample,
// which speedscope shows for no time.
async function checkPerf(browser, port, set) {
	const page = await newPage(browser);
	const file = set.name + ".perf";
	const title = await speedscopeByImport(page, port, file);
	const ex = await speedscopeExport(page);
	const want = new Map([...set.threads].map(([root, st]) => {
		const { comm, pid, tid } = rootIds(root);
		/* a record without a PID: perf output prints the TID alone */
		return [pid === "?" ? `${comm} tid: ${tid}` : `${comm} pid: ${pid} tid: ${tid}`, st];
	}));
	assert.ok(title.includes(`(1/${want.size})`) || want.size === 1,
		  `toolbar '${title}': not ${want.size} threads`);
	assert.deepStrictEqual(sorted(ex.profiles.map((p) => p.name)), sorted(want.keys()),
			       "speedscope's threads");
	const names = new Set(ex.shared.frames.map(perfFrameName));
	const ours = new Set([...set.folded.keys()].flatMap((s) => s.split(";").slice(1)));
	assert.deepStrictEqual(sorted(names), sorted(ours), "speedscope's frame names");
	for (const p of ex.profiles) {
		const got = exportedStacks(p, ex.shared.frames, perfFrameName), st = want.get(p.name);
		for (const s of got.keys())
			assert.ok(st.has(s), `${p.name}: speedscope has a stack flamebpf has not: ${s}`);
		const missing = [...st.keys()].filter((s) => !got.has(s));
		assert.ok(missing.length <= 1, `${p.name}: stacks speedscope has not: ${missing}`);
	}
}

// speedscope names a trace event "NAME ARGS-AS-JSON" (so a function called
// with other arguments is another frame); the category that marks kernel
// frames is not shown. With uprobe calls the weights are the self times.
//
// speedscope computes each X event's end as ts + dur in floating point and
// pairs ends with begins by comparing those sums exactly; with fractions of
// a microsecond (flamebpf's times are exact to the ns) a child's end can
// come out 1 ulp after its parent's, or a frame's after its next sibling's
// start, and speedscope then nests the rest of the thread wrongly (it warns
// "Tried to end ..."). The names and threads are still checked; the stacks
// are compared when speedscope nested every event, and the test is skipped,
// with the count, when it did not.
async function checkChrome(browser, port, set, exactTimes) {
	const page = await newPage(browser);
	const file = set.name + ".json";
	const title = await speedscopeByURL(page, port, file);
	const ex = await speedscopeExport(page);
	const want = new Map([...set.threads].map(([root, st]) => {
		const { comm, pid: p, tid } = rootIds(root);
		const pid = p === "?" ? tid : p; /* no PID: chrome output gives the TID */
		const plain = new Map([...st].map(([s, n]) => [s.replace(/_\[k\](?=;|$)/g, ""), n]));
		return [`${comm} (pid ${pid}), ${comm} (tid ${tid})`, plain];
	}));
	assert.ok(want.has(title.replace(/ \(\d+\/\d+\)$/, "")), `toolbar '${title}' names no thread`);
	assert.deepStrictEqual(sorted(ex.profiles.map((p) => p.name)), sorted(want.keys()),
			       "speedscope's threads");
	const name = (f) => f.name.replace(/ \{.*\}$/, "");
	const ours = [...want.values()].flatMap((st) => [...st.keys()].flatMap((k) => k.split(";")));
	assert.deepStrictEqual(sorted(new Set(ex.shared.frames.map(name))), sorted(new Set(ours)),
			       "speedscope's frame names");
	if (page.misnested.length)
		throw new Skip(`speedscope mis-nested ${page.misnested.length} event(s) of ${file} ` +
			       `(float ends, a speedscope limitation): ${page.misnested[0]}`);
	for (const p of ex.profiles) {
		const got = exportedStacks(p, ex.shared.frames, name), st = want.get(p.name);
		for (const [s, n] of st) {
			assert.ok(got.has(s), `${p.name}: speedscope lacks the stack ${s}`);
			if (exactTimes)
				assert.ok(Math.abs(got.get(s) * 1000 - n) <= 1 + n * 1e-9,
					  `${p.name}: ${s}: ${got.get(s)} us, flamebpf ${n} ns`);
		}
		/* a parent span covers the small gaps between its samples */
		for (const s of got.keys())
			assert.ok(st.has(s) || [...st.keys()].some((o) => o.startsWith(s + ";")),
				  `${p.name}: speedscope has a stack flamebpf has not: ${s}`);
	}
}

// ---- the SVG ----

async function openSvg(browser, port, set, query) {
	const page = await newPage(browser);
	await page.goto(`http://127.0.0.1:${port}/data/${set.name}.svg${query || ""}`);
	assert.strictEqual(await page.evaluate(() => document.documentElement.localName), "svg",
			   "Chromium did not read the SVG (XML error?)");
	assert.strictEqual(await page.locator("parsererror").count(), 0);
	page.frames_ = await page.$$eval("#frames > g", (gs) => gs.map((g) => ({
		title: g.querySelector("title").textContent,
		x: +g.getAttribute("fg:x"),
		w: +g.getAttribute("fg:w"),
		y: +g.querySelector("rect").getAttribute("y"),
	})));
	return page;
}

function svgName(title) {
	return title.slice(0, title.lastIndexOf(" ("));
}

function rect(page, i) {
	return page.locator(`#frames > g:nth-child(${i + 1}) > rect`);
}

async function svgState(page) {
	return page.$$eval("#frames > g", (gs) => gs.map((g) => ({
		cls: g.getAttribute("class") || "",
		x: +g.querySelector("rect").getAttribute("x"),
		w: +g.querySelector("rect").getAttribute("width"),
		fill: g.querySelector("rect").getAttribute("fill"),
	})));
}

// The same classes and fills, and geometry to the 0.1 px the writer and the
// script each round to (C's printf and JS's toFixed round 0.05 apart).
function sameGraph(got, want, when) {
	want.forEach((w, j) => {
		const g = got[j];
		assert.deepStrictEqual([g.cls, g.fill], [w.cls, w.fill], `${when}: frame ${j}`);
		assert.ok(Math.abs(g.x - w.x) < 0.11 && Math.abs(g.w - w.w) < 0.11,
			  `${when}: frame ${j} at ${g.x}+${g.w}, not ${w.x}+${w.w}`);
	});
}

// The frame to zoom into: the widest one that has a parent besides "all"
// and a frame beside it (so that zooming must hide something).
function zoomTarget(frames) {
	const all = frames[0];
	const c = frames.map((f, i) => ({ f, i }))
		.filter(({ f }) => f.y < all.y - 16 && f.w < all.w / 2)
		.sort((a, b) => b.f.w - a.f.w);
	assert.ok(c.length, "no frame to zoom into");
	return c[0].i;
}

async function checkSvgHover(browser, port, set) {
	const page = await openSvg(browser, port, set);
	const i = zoomTarget(page.frames_);
	await rect(page, i).hover();
	assert.strictEqual(await page.textContent("#details"), page.frames_[i].title);
	const unit = set.name === "uprobe" ? / \(\d+(\.\d+)? m?s, \d+\.\d\d%\)$/
		: / \(\d+ samples?, \d+\.\d\d%\)$/;
	assert.match(page.frames_[i].title, unit);
	await rect(page, 0).hover();
	assert.strictEqual(await page.textContent("#details"), page.frames_[0].title);
	await page.mouse.move(0, 0);
	assert.strictEqual(await page.textContent("#details"), " ");
	assert.deepStrictEqual(page.errors, []);
}

async function checkSvgZoom(browser, port, set) {
	const page = await openSvg(browser, port, set);
	const fr = page.frames_, i = zoomTarget(fr), before = await svgState(page);
	const width = before[0].w;
	assert.strictEqual(await page.getAttribute("#unzoom", "class"), "hide");
	await rect(page, i).click();
	const after = await svgState(page);
	assert.deepStrictEqual([after[i].x, after[i].w, after[i].cls], [before[0].x, width, ""],
			       "the clicked frame does not fill the width");
	fr.forEach((f, j) => {
		const inside = f.y <= fr[i].y && f.x >= fr[i].x && f.x + f.w <= fr[i].x + fr[i].w;
		const below = f.y > fr[i].y && f.x <= fr[i].x && f.x + f.w >= fr[i].x + fr[i].w;
		const cls = inside ? "" : below ? "parent" : "hide";
		assert.strictEqual(after[j].cls, cls, `after the zoom: ${f.title}`);
		if (inside)
			assert.ok(Math.abs(after[j].w - f.w * width / fr[i].w) < 0.1, f.title);
	});
	assert.strictEqual(await page.getAttribute("#unzoom", "class"), "");
	assert.ok(page.url().endsWith(`?x=${fr[i].x}&y=${fr[i].y}`), page.url());
	await page.click("#unzoom");
	sameGraph(await svgState(page), before, "after Reset Zoom");
	assert.strictEqual(await page.getAttribute("#unzoom", "class"), "hide");
	assert.deepStrictEqual(page.errors, []);
}

// The share of the weight whose stack holds a frame whose name matches.
function matchedShare(set, re) {
	let hit = 0, total = 0;
	for (const [stack, n] of set.folded) {
		total += n;
		if (stack.split(";").some((f) => re.test(f.replace(/_\[k\]$/, ""))))
			hit += n;
	}
	return (100 * hit / total).toFixed(1) + "%";
}

async function checkSvgSearch(browser, port, set) {
	const page = await openSvg(browser, port, set);
	const fr = page.frames_, before = await svgState(page);
	const term = set.name === "uprobe" ? "^tree_c$" : "^(__str|ksys_)";
	const re = new RegExp(term);
	page.on("dialog", (d) => d.accept(term));
	await page.keyboard.press("Control+f");
	await page.waitForFunction(() => document.getElementById("matched").textContent.trim());
	assert.strictEqual(await page.textContent("#matched"), "Matched: " + matchedShare(set, re));
	const after = await svgState(page);
	let lit = 0;
	fr.forEach((f, j) => {
		const hit = re.test(svgName(f.title));
		lit += hit;
		assert.strictEqual(after[j].fill, hit ? HIGHLIGHT : before[j].fill, f.title);
	});
	assert.ok(lit > 0, "nothing highlighted");
	assert.strictEqual(await page.textContent("#search"), "Reset Search");
	assert.ok(page.url().endsWith("?s=" + encodeURIComponent(term)), page.url());
	await page.keyboard.press("Escape");
	sameGraph(await svgState(page), before, "after Escape");
	assert.strictEqual(await page.textContent("#matched"), " ");
	assert.deepStrictEqual(page.errors, []);
}

// A link with the state in it (?x=&y=&s=) opens zoomed and searched.
async function checkSvgUrl(browser, port, set) {
	const probe = await openSvg(browser, port, set);
	const fr = probe.frames_, i = zoomTarget(fr), term = svgName(fr[i].title);
	await probe.close();
	const re = "^" + term.replace(/[.*+?^${}()|[\]\\]/g, "\\$&") + "$";
	const q = `?x=${fr[i].x}&y=${fr[i].y}&s=${encodeURIComponent(re)}`;
	const page = await openSvg(browser, port, set, q);
	const st = await svgState(page);
	assert.deepStrictEqual([st[i].w, st[i].fill], [st[0].w, HIGHLIGHT]);
	assert.match(await page.textContent("#matched"), /^Matched: \d+\.\d% \(100\.0% of the zoomed frame\)$/);
	assert.deepStrictEqual(page.errors, []);
}

// ---- the HTML report ----

// Opens NAME.html as served; every request the page makes beyond its own
// document is noted, and htmlDone() fails the test if there was one.
// Dialogs (alert) are noted too, and dismissed.
async function openHtml(browser, port, set, hash = "") {
	const page = await newPage(browser);
	const url = `http://127.0.0.1:${port}/data/${set.name}.html`;
	page.requests = [];
	page.dialogs = [];
	page.on("dialog", (d) => {
		page.dialogs.push(d.message());
		d.dismiss();
	});
	page.on("request", (r) => {
		if (r.url() !== url)
			page.requests.push(r.url());
	});
	await page.setViewportSize({ width: 1300, height: 1000 });
	await page.goto(url + hash);
	await page.waitForSelector("body[data-ready]");
	return page;
}

async function htmlDone(page) {
	assert.deepStrictEqual(page.errors, [], "script errors");
	assert.deepStrictEqual(page.dialogs, [], "dialogs (a script of the data's?)");
	assert.deepStrictEqual(page.requests, [], "requests beyond the page");
}

function htmlFrames(page) {
	return page.evaluate(() => window.flamebpfReport.frames());
}

// Scrolls the frame into view first: deep graphs scroll in a box.
async function frameCentre(page, f) {
	await page.evaluate((y) => {
		const box = document.getElementById("flame-box");
		box.scrollTop = y - box.clientHeight / 2;
		box.scrollIntoView({ block: "center" });
	}, f.y + 8);
	const b = await page.locator("#flamegraph").boundingBox();
	return [b.x + f.x + f.w / 2, b.y + f.y + 8];
}

// The widest frame above a root that leaves room beside it.
function htmlZoomTarget(frames) {
	const width = frames[0].w;
	const c = frames.filter((f) => !f.parent && f.depth >= 2 && f.w < width / 2)
		.sort((a, b) => b.w - a.w);
	assert.ok(c.length, "no frame to zoom into");
	return c[0];
}

// Cell [column, row] of the heatmap, from the geometry it publishes.
async function cellCentre(page, [c, r]) {
	await page.evaluate(() => window.scrollTo(0, 0));
	const b = await page.locator("#heatmap").boundingBox();
	const d = await page.evaluate(() => Object.assign({}, document.getElementById("heatmap").dataset));
	return [b.x + +d.left + (c + 0.5) * +d.cellW, b.y + +d.top + (r + 0.5) * +d.cellH];
}

async function dragCells(page, from, to) {
	await page.mouse.move(...await cellCentre(page, from));
	await page.mouse.down();
	await page.mouse.move(...await cellCentre(page, to), { steps: 5 });
	await page.mouse.up();
}

// The luminance of each cell's centre as drawn: [column][row].
function heatLuminance(page) {
	return page.evaluate(() => {
		const cv = document.getElementById("heatmap"), d = cv.dataset;
		const ctx = cv.getContext("2d"), k = window.devicePixelRatio || 1, cols = [];
		for (let c = 0; c < +d.cols; c++) {
			const col = [];
			for (let r = 0; r < +d.rows; r++) {
				const x = (+d.left + (c + 0.5) * +d.cellW) * k, y = (+d.top + (r + 0.5) * +d.cellH) * k;
				const p = ctx.getImageData(Math.floor(x), Math.floor(y), 1, 1).data;
				col.push(0.2126 * p[0] + 0.7152 * p[1] + 0.0722 * p[2]);
			}
			cols.push(col);
		}
		return cols;
	});
}

// phases spikes from +0.5 s to +0.6 s of every second in a second thread
// while its main thread works half the time: rows 25 to 29 of 50 hold about
// three times the samples of the others (twice when other sessions' work
// leaves the two threads one CPU). In a second where a cell stands out
// (1.5 times the median's samples), the darkest cell must be one of them
// (a row either side: the heatmap starts at the first sample, a little
// before or after main); three of the four seconds must show theirs.
async function checkHtmlHeatmap(browser, port, set) {
	const page = await openHtml(browser, port, set);
	const lum = await heatLuminance(page);
	const heat = await page.evaluate(() => window.flamebpfReport.heat());
	assert.ok(lum.length >= 4, `${lum.length} columns for a 4 s capture`);
	assert.strictEqual(lum[0].length, 50);
	let shown = 0;
	for (let c = 0; c < 4; c++) {
		const v = heat.values.slice(c * 50, c * 50 + 50), max = Math.max(...v);
		const median = [...v].sort((a, b) => a - b)[25];
		if (max < 1.5 * median)
			continue;
		const darkest = lum[c].indexOf(Math.min(...lum[c]));
		assert.ok(darkest >= 24 && darkest <= 30,
			  `second ${c}: the darkest cell is row ${darkest}, not a spike's (25-29): ${v}`);
		shown++;
	}
	assert.ok(shown >= 3, `the spikes stand out in ${shown} of 4 seconds (machine busy?)`);
	assert.match(await page.textContent("#scale-max"), /^\d[\d,]* samples per cell$/);
	await htmlDone(page);
}

async function names(page) {
	return new Set((await htmlFrames(page)).map((f) => f.name));
}

async function tableNames(page) {
	return page.$$eval("#functions tbody td.name", (tds) => tds.map((t) => t.textContent));
}

// Dragging over the first two columns selects [0, 2 s): phase_a and the
// spikes, no phase_b (phases pauses 30 ms before it, for the first sample's
// offset); later seconds phase_b alone; "Whole capture" both again.
async function checkHtmlSelect(browser, port, set) {
	const page = await openHtml(browser, port, set);
	const whole = await names(page);
	for (const f of ["phase_a", "phase_b", "spike"])
		assert.ok(whole.has(f), `no ${f} in the whole capture`);
	await dragCells(page, [0, 0], [1, 49]);
	assert.deepStrictEqual(await page.evaluate(() => window.flamebpfReport.selection()), [0, 2e9]);
	assert.match(await page.textContent("#selection"), /^selected: 0\.000-2\.000 s, \d[\d,]* samples$/);
	let got = await names(page), table = await tableNames(page);
	assert.ok(got.has("phase_a") && got.has("spike"), `the first 2 s: ${[...got]}`);
	assert.ok(!got.has("phase_b"), "phase_b in the flame graph of the first 2 s");
	assert.ok(table.includes("phase_a") && !table.includes("phase_b"), `table: ${table}`);
	await dragCells(page, [2, 3], [3, 49]);
	got = await names(page);
	assert.ok(got.has("phase_b") && !got.has("phase_a"), `2.06-4 s: ${[...got]}`);
	/* a range after the end, as a script selects it */
	await page.evaluate(() => window.flamebpfReport.select([10e9, 11e9]));
	assert.strictEqual(await page.evaluate(() => window.flamebpfReport.total()), 0);
	assert.strictEqual(await page.textContent("#details"), "nothing in the selected range");
	await page.click("#whole");
	assert.strictEqual(await page.evaluate(() => window.flamebpfReport.selection()), null);
	assert.ok((await names(page)).has("phase_a"));
	await htmlDone(page);
}

async function checkHtmlHover(browser, port, set) {
	const page = await openHtml(browser, port, set);
	const t = htmlZoomTarget(await htmlFrames(page));
	await page.mouse.move(...await frameCentre(page, t));
	const details = await page.textContent("#details");
	assert.ok(details.startsWith(t.name), `details '${details}' for ${t.name}`);
	const unit = set.name === "uprobe" || set.name === "offcpu" ? /\(\d+(\.\d+)? (s|ms|us|ns), \d+\.\d\d%/
		: /\(\d[\d,]* samples?, \d+\.\d\d%/;
	assert.match(details, unit);
	await page.mouse.move(0, 0);
	assert.strictEqual((await page.textContent("#details")).trim(), "");
	await htmlDone(page);
}

// A click zooms: the frame fills the width, its callers below it at full
// width and faded, nothing beside it; Reset zoom draws what was drawn.
async function checkHtmlZoom(browser, port, set) {
	const page = await openHtml(browser, port, set);
	const before = await htmlFrames(page), width = before[0].w, t = htmlZoomTarget(before);
	assert.strictEqual(await page.isEnabled("#unzoom"), false);
	await page.mouse.click(...await frameCentre(page, t));
	const after = await htmlFrames(page);
	const z = after.find((f) => !f.parent && f.depth === t.depth);
	assert.ok(z && z.name === t.name && z.x === 0 && Math.abs(z.w - width) < 1e-6,
		  `zoomed into ${t.name}: ${JSON.stringify(z)}`);
	for (const f of after) {
		if (f.parent)
			assert.ok(f.depth < t.depth && Math.abs(f.w - width) < 1e-6,
				  `caller ${f.name}: ${f.w} of ${width}`);
		else
			assert.ok(f.depth >= t.depth, `${f.name} beside the zoomed frame`);
	}
	assert.strictEqual(after.filter((f) => f.parent).length, t.depth);
	assert.strictEqual(await page.isEnabled("#unzoom"), true);
	await page.click("#unzoom");
	assert.deepStrictEqual(await htmlFrames(page), before, "after Reset zoom");
	assert.strictEqual(await page.isEnabled("#unzoom"), false);
	await htmlDone(page);
}

function searchTerm(set) {
	return { uprobe: "^tree_c$", phases: "^phase_", offcpu: "^wait_" }[set.name] || "^(__str|ksys_)";
}

// Ctrl-F, a regex, Enter: the matches drawn in the highlight, their share
// (a match inside another once) that of the folded output; Escape undoes.
async function checkHtmlSearch(browser, port, set) {
	const page = await openHtml(browser, port, set);
	const term = searchTerm(set), re = new RegExp(term), before = await htmlFrames(page);
	await page.keyboard.press("Control+f");
	await page.keyboard.type(term);
	await page.keyboard.press("Enter");
	assert.strictEqual(await page.textContent("#matched"), "Matched: " + matchedShare(set, re));
	const after = await htmlFrames(page);
	let lit = 0;
	after.forEach((f, j) => {
		const hit = f.name !== "all" && re.test(f.name);
		lit += hit;
		assert.strictEqual(f.fill, hit ? HIGHLIGHT : before[j].fill, f.name);
	});
	assert.ok(lit > 0, "nothing highlighted");
	await page.keyboard.press("Escape");
	assert.strictEqual(await page.textContent("#matched"), "");
	assert.deepStrictEqual(await htmlFrames(page), before, "after Escape");
	await htmlDone(page);
}

async function tableRows(page) {
	return page.$$eval("#functions tbody tr", (trs) => trs.map((tr) => ({
		name: tr.cells[0].textContent, self: +tr.cells[1].dataset.value,
		total: +tr.cells[2].dataset.value })));
}

function sortedBy(rows, key, up) {
	return rows.every((r, i) => !i || (up ? rows[i - 1][key] <= r[key] : rows[i - 1][key] >= r[key]));
}

// The weight of the stacks that hold a name, each once: a total of the table.
function inclusive(set, name) {
	let w = 0;
	for (const [stack, n] of set.folded)
		if (stack.split(";").slice(1).includes(name))
			w += n;
	return w;
}

// Sorted by self at first; a header sorts by its column, again the other
// way; the totals are the folded output's.
async function checkHtmlTable(browser, port, set) {
	const page = await openHtml(browser, port, set);
	let rows = await tableRows(page);
	assert.ok(rows.length > 2, `${rows.length} rows`);
	assert.ok(sortedBy(rows, "self", false), "not by self at first");
	for (const r of rows)
		assert.strictEqual(r.total, inclusive(set, r.name), `total of ${r.name}`);
	await page.click("#functions th[data-key=total]");
	assert.ok(sortedBy(await tableRows(page), "total", false), "not by total");
	await page.click("#functions th[data-key=total]");
	assert.ok(sortedBy(await tableRows(page), "total", true), "not by total, ascending");
	await page.click("#functions th[data-key=name]");
	rows = await tableRows(page);
	assert.ok(sortedBy(rows, "name", true), "not by name");
	await htmlDone(page);
}

// What a user sees of the view: selection, frames, the search's share, the
// controls.
function htmlView(page) {
	return page.evaluate(() => ({
		selection: window.flamebpfReport.selection(),
		frames: window.flamebpfReport.frames(),
		matched: document.getElementById("matched").textContent,
		search: document.getElementById("search").value,
		rows: document.getElementById("rows").value,
		icicle: document.getElementById("icicle").checked,
	}));
}

// A selection, a zoom, a search, the rows and icicle land in the URL's
// hash; the same URL in another tab, or a reload, shows the same view; a
// hash that makes no sense opens the default view without an error;
// "Whole capture" and the resets leave no hash.
async function checkHtmlUrl(browser, port, set) {
	const page = await openHtml(browser, port, set);
	const plain = await htmlView(page);
	await page.selectOption("#rows", "25");
	await dragCells(page, [0, 0], [0, 12]);
	const t = htmlZoomTarget(await htmlFrames(page));
	await page.mouse.click(...await frameCentre(page, t));
	await page.fill("#search", searchTerm(set));
	await page.press("#search", "Enter");
	await page.check("#icicle");
	const view = await htmlView(page), url = page.url();
	assert.deepStrictEqual(view.selection, [0, 0.52e9]);
	assert.match(new URL(url).hash, /^#sel=0-0\.52&rows=25&zoom=[^&]+&search=[^&]+&icicle=1$/);
	assert.ok(view.frames.some((f) => f.parent), "not zoomed");
	const other = await openHtml(browser, port, set, new URL(url).hash);
	assert.deepStrictEqual(await htmlView(other), view, `opened at ${url}`);
	await htmlDone(other);
	await page.reload();
	await page.waitForSelector("body[data-ready]");
	assert.deepStrictEqual(await htmlView(page), view, "after a reload");
	await page.click("#unzoom");
	await page.click("#whole");
	await page.click("#unsearch");
	await page.selectOption("#rows", "50");
	await page.uncheck("#icicle");
	assert.strictEqual(new URL(page.url()).hash, "");
	assert.deepStrictEqual(await htmlView(page), plain, "back to the default view");
	await htmlDone(page);
	const bad = await openHtml(browser, port, set, "#sel=2-1&rows=7&zoom=no;such&search=%E0%A4%A&icicle");
	assert.deepStrictEqual(await htmlView(bad), plain, "a hash that makes no sense");
	await htmlDone(bad);
}

// The sandwich a function should have, from the folded output: the
// callers' paths (the function, its caller, ... the root) and the callees'
// (the function, a callee, ...), each weighing the stacks through it; a
// recursive function counts at its outermost call.
function sandwichWant(set, name) {
	const callers = new Map(), callees = new Map();
	const add = (m, k, n) => m.set(k, (m.get(k) || 0) + n);
	for (const [stack, n] of set.folded) {
		const s = stack.split(";"), i = s.indexOf(name, 1);
		if (i < 0)
			continue;
		for (let k = i; k >= 0; k--)
			add(callers, s.slice(k, i + 1).reverse().join(";"), n);
		for (let k = i; k < s.length; k++)
			add(callees, s.slice(i, k + 1).join(";"), n);
	}
	return { callers, callees };
}

function sandwichGot(list) {
	return new Map(list.map((t) => [t.path, t.w]));
}

async function treeFrameCentre(page, canvas, f) {
	await page.evaluate(([c, y]) => {
		const top = document.querySelector(c).getBoundingClientRect().top + window.scrollY;
		window.scrollTo(0, top + y - window.innerHeight / 2);
	}, [canvas, f.y]);
	const b = await page.locator(canvas).boundingBox();
	return [b.x + f.x + f.w / 2, b.y + f.y + 8];
}

// A click on a function in the table shows its sandwich: callers and
// callees merged as the folded output has them (cpu_tree's burn: called by
// tree_a, and by tree_c under tree_b); a click on a caller shows that
// one's; a shift-click in the flame graph a frame's, without zooming; the
// function is in the URL; Close hides it.
async function checkHtmlSandwich(browser, port, set) {
	const page = await openHtml(browser, port, set);
	assert.ok(await page.isHidden("#sandwich"), "a sandwich before any was asked for");
	const name = { uprobe: "burn", sampling: "burn", phases: "spike" }[set.name] ||
	      (await tableNames(page))[0];
	await page.locator("#functions tbody tr", { has: page.locator(`td.name[title="${name}"]`) })
		.first().click();
	assert.ok(await page.isVisible("#sandwich"));
	assert.ok((await page.textContent("#sandwich-title")).startsWith(`Sandwich: ${name} (`));
	const got = await page.evaluate(() => window.flamebpfReport.sandwich()), want = sandwichWant(set, name);
	assert.strictEqual(got.name, name);
	assert.deepStrictEqual(sandwichGot(got.callers), want.callers, "callers");
	assert.deepStrictEqual(sandwichGot(got.callees), want.callees, "callees");
	if (name === "burn") {
		const callers = [...want.callers.keys()].filter((k) => k.split(";").length === 2);
		assert.deepStrictEqual(callers.sort(), ["burn;tree_a", "burn;tree_c"]);
		assert.ok(want.callers.has("burn;tree_c;tree_b"));
	}
	assert.match(new URL(page.url()).hash, new RegExp("fn=" + encodeURIComponent(name).replace(/[.*+?^$()[\]\\]/g, "\\$&") + "$"));
	const caller = got.drawn.callers.find((f) => f.depth === 1);
	assert.ok(caller, "no caller drawn");
	assert.strictEqual(got.drawn.callees[0].name, name);
	await page.mouse.click(...await treeFrameCentre(page, "#callers", caller));
	assert.strictEqual((await page.evaluate(() => window.flamebpfReport.sandwich())).name, caller.name);
	const t = htmlZoomTarget(await htmlFrames(page));
	await page.keyboard.down("Shift");
	await page.mouse.click(...await frameCentre(page, t));
	await page.keyboard.up("Shift");
	assert.strictEqual((await page.evaluate(() => window.flamebpfReport.sandwich())).name, t.name);
	assert.ok(!(await htmlFrames(page)).some((f) => f.parent), "a shift-click zoomed");
	await page.click("#unsandwich");
	assert.ok(await page.isHidden("#sandwich"));
	assert.ok(!/fn=/.test(page.url()));
	await htmlDone(page);
}

// The processes of a set, from its --tids folded output: key (the pid, or
// the name where the input had none) -> weight.
function processWeights(set) {
	const w = new Map();
	for (const [root, stacks] of set.threads) {
		const id = rootIds(root), key = id.pid === "?" ? id.comm : id.pid;
		for (const n of stacks.values())
			w.set(key, (w.get(key) || 0) + n);
	}
	return w;
}

// The picker lists every process, the heaviest first, with the folded
// output's weight; choosing one gives a heatmap, graph and table of it
// alone (its roots only, its weight, its cells adding up to it), kept in
// the URL; "all" gives everything again.
async function checkHtmlProcesses(browser, port, set) {
	const page = await openHtml(browser, port, set);
	const want = processWeights(set), all = await page.evaluate(() => window.flamebpfReport.total());
	const options = await page.$$eval("#process option", (os) => os.map((o) => o.value));
	assert.strictEqual(options[0], "");
	assert.deepStrictEqual(new Set(options.slice(1)), new Set(want.keys()));
	const listed = await page.evaluate(() => window.flamebpfReport.processes());
	const weights = options.slice(1).map((k) => listed.find((p) => p.key === k).weight);
	assert.ok(weights.every((w, i) => !i || weights[i - 1] >= w), `not heaviest first: ${weights}`);
	for (const key of options.slice(1, 3)) {
		await page.selectOption("#process", key);
		const total = await page.evaluate(() => window.flamebpfReport.total());
		assert.strictEqual(total, want.get(key), `the weight of process ${key}`);
		const name = listed.find((p) => p.key === key).name.replace(/ \(\d+\)$/, "");
		const roots = new Set((await htmlFrames(page)).filter((f) => f.depth === 1).map((f) => f.name));
		assert.deepStrictEqual([...roots], [name], `the roots of process ${key}`);
		const heat = await page.evaluate(() => window.flamebpfReport.heat());
		assert.strictEqual(heat.values.reduce((x, y) => x + y, 0), total, "its cells");
		assert.match(new URL(page.url()).hash, new RegExp(`proc=${encodeURIComponent(key)}$`));
	}
	await page.reload();
	await page.waitForSelector("body[data-ready]");
	assert.strictEqual(await page.evaluate(() => window.flamebpfReport.process()), options[2]);
	assert.strictEqual(await page.inputValue("#process"), options[2]);
	await page.selectOption("#process", "");
	assert.strictEqual(await page.evaluate(() => window.flamebpfReport.total()), all);
	assert.strictEqual(new URL(page.url()).hash, "");
	await htmlDone(page);
}

// flamebpf diff -o diff.html of the data set against itself with one stack
// grown tenfold: the page shows diff's table (that leaf first, grown), the
// leaf's frame red and an unchanged root's grey, hover gives the base's
// share and the change, no heatmap.
async function checkHtmlDiff(browser, port, set) {
	const lines = fs.readFileSync(set.base + ".folded", "utf8").trim().split("\n");
	const grown = lines.map((l, i) => (i ? l : l.replace(/ (\d+)$/, (m, n) => " " + n * 10)));
	const leaf = lines[0].replace(/ \d+$/, "").split(";").pop();
	fs.writeFileSync(path.join(OUT, "grown.folded"), grown.join("\n") + "\n");
	try {
		flamebpf(["diff", "--threshold", "1000", set.base + ".folded", path.join(OUT, "grown.folded"),
			  "-o", path.join(OUT, "diff.html")]);
	} catch (e) {
		assert.ok(e.status === 0 || e.status === 1, `diff exited ${e.status}: ${e.stderr}`);
	}
	const page = await openHtml(browser, port, { name: "diff" });
	const rows = await page.evaluate(() => window.flamebpfReport.diff());
	assert.strictEqual(rows[0][5], leaf, `first row ${rows[0]}`);
	assert.match(rows[0][0], /^\+\d+\.\d pt$/);
	assert.ok(await page.isHidden("#heat-section"), "a heatmap in a diff");
	assert.match(await page.textContent("#title"), /^Differential flame graph/);
	const frames = await htmlFrames(page);
	const rgb = (f) => f.fill.match(/\d+/g).map(Number);
	const red = frames.find((f) => f.name === leaf && rgb(f)[0] > rgb(f)[2] + 50);
	assert.ok(red, `no red ${leaf}: ${JSON.stringify(frames.filter((f) => f.name === leaf))}`);
	await page.mouse.move(...await frameCentre(page, red));
	assert.match(await page.textContent("#details"), / base \d[\d,]* samples? \d+\.\d\d%, \+\d+\.\d\d points$/);
	await htmlDone(page);
}

// A probe's hits on the timeline: work:guarded's leaf rects, each hit in
// one of them, hold the arguments of their first hit and how many they
// merge (200 in all, the first's arg1 1); hovering one shows them.
async function checkHtmlHits(browser, port, set) {
	const page = await openHtml(browser, port, set);
	const tl = await page.evaluate(() => window.flamebpfReport.timeline());
	const guarded = (r) => r.name === "[work:guarded]";
	let hits = 0;
	assert.ok(tl.drawn.some(guarded), "no [work:guarded] drawn");
	tl.rects.filter(guarded).forEach((r, k) => {
		const m = r.args.match(/^ arg0=\d+ arg1=(\d+) arg2=0( \(the first of (\d+) hits\))?$/);
		assert.ok(m, `[work:guarded]'s args '${r.args}'`);
		if (k === 0)
			assert.strictEqual(m[1], "1", "the first hit's arg1");
		hits += m[3] ? Number(m[3]) : 1;
	});
	assert.strictEqual(hits, 200, "hits in the [work:guarded] rects");
	await htmlDone(page);
	/* hovering: the window zoomed (through the URL) to the longest run of
	 * hits, which the whole capture draws under a pixel wide */
	const run = tl.rects.filter(guarded).reduce((x, y) => (y.to - y.from > x.to - x.from ? y : x));
	const pad = (run.to - run.from) / 2 + 1000;
	const zoomed = await openHtml(browser, port, set,
				      `#tl=${(run.from - pad) / 1e9}-${(run.to + pad) / 1e9}`);
	const drawn = (await zoomed.evaluate(() => window.flamebpfReport.timeline())).drawn
		.filter(guarded);
	assert.ok(drawn.length > 0, "no [work:guarded] drawn in the zoomed window");
	const widest = drawn.reduce((x, y) => (y.w > x.w ? y : x));
	assert.ok(widest.w >= 4, `[work:guarded] ${widest.w} px wide in the zoomed window`);
	await zoomed.locator("#timeline").scrollIntoViewIfNeeded();
	const tb = await zoomed.locator("#timeline").boundingBox();
	await zoomed.mouse.move(tb.x + widest.x + widest.w / 2, tb.y + widest.y + 3);
	assert.match(await zoomed.textContent("#timeline-details"), /^\[work:guarded\] .* arg0=\d+ arg1=\d+ arg2=0/);
	await htmlDone(zoomed);
}

// The timeline of the heaviest thread. Traced calls (cpu_tree): a rect per
// call, as many as the Chrome JSON has calls of the thread, burn nested in
// tree_a or tree_c. Samples (phases): phase_a's runs, then from about 2 s
// phase_b's. The thread and window are kept in the URL. The wheel zooms in around the mouse; Reset
// zoom shows everything again.
async function checkHtmlTimeline(browser, port, set) {
	const page = await openHtml(browser, port, set);
	const tl = () => page.evaluate(() => window.flamebpfReport.timeline());
	const all = await tl();
	assert.ok(all.drawn.length > 0, "nothing drawn");
	if (set.name === "uprobe") {
		const trace = JSON.parse(fs.readFileSync(set.base + ".json", "utf8")).traceEvents;
		const tid = await page.evaluate((t) => document.querySelector("#thread").selectedOptions[0]
						.textContent.match(/\/(\d+):/)[1], all.thread);
		const calls = trace.filter((e) => e.ph === "X" && String(e.tid) === tid &&
					   e.name === "tree_a").length;
		const rects = await page.evaluate(() => window.flamebpfReport.timeline());
		assert.ok(calls > 0, `no tree_a calls of thread ${tid}`);
		const narrow = rects.drawn.filter((r) => r.name === "tree_a").length;
		assert.ok(narrow <= calls && narrow > 0, `${narrow} tree_a rects for ${calls} calls`);
		for (const b of rects.drawn.filter((r) => r.name === "burn"))
			assert.ok(rects.drawn.some((p) => (p.name === "tree_a" || p.name === "tree_c") &&
						   p.depth === b.depth - 1 && p.from <= b.from && p.to >= b.to),
				  `burn at ${b.from} not inside its caller`);
		/* each call's arguments, as the Chrome JSON has them: burn's
		 * iterations; hovering a call shows them */
		const burnArgs = new Set(trace.filter((e) => e.ph === "X" && e.name === "burn")
					 .map((e) => String(e.args.arg0)));
		const burns = rects.drawn.filter((r) => r.name === "burn");
		assert.ok(burns.length > 0, "no burn drawn");
		for (const b of burns) {
			const m = b.args.match(/^ arg0=(\S+) arg1=\S+ arg2=\S+ (ret=\S+|unfinished)$/);
			assert.ok(m && burnArgs.has(m[1]), `burn's args '${b.args}', the trace's arg0 ${[...burnArgs]}`);
		}
		const widest = burns.reduce((x, y) => (y.w > x.w ? y : x));
		await page.locator("#timeline").scrollIntoViewIfNeeded();
		const tb = await page.locator("#timeline").boundingBox();
		await page.mouse.move(tb.x + widest.x + widest.w / 2, tb.y + widest.y + 3);
		assert.match(await page.textContent("#timeline-details"), /^burn .* arg0=\d+ arg1=/);
	} else {
		const a = all.drawn.filter((r) => r.name === "phase_a"), b = all.drawn.filter((r) => r.name === "phase_b");
		assert.ok(a.length && b.length, `phase_a ${a.length}, phase_b ${b.length} runs`);
		/* in time order (where time 0 falls depends on the start's speed) */
		const lastA = Math.max(...a.map((r) => r.from)), firstB = Math.min(...b.map((r) => r.from));
		assert.ok(lastA < firstB, `phase_a runs until ${lastA} ns, phase_b from ${firstB} ns`);
		assert.ok(firstB > 1.5e9 && firstB < 2.5e9, `phase_b from ${firstB} ns`);
		/* five samples' time at least (runs are short on a loaded machine) */
		assert.ok(a.some((r) => r.to - r.from >= 5e6), "phase_a's samples not merged into runs");
	}
	const threads = await page.$$eval("#thread option", (os) => os.map((o) => o.value));
	if (threads.length > 1)
		await page.selectOption("#thread", threads[1]);
	const box = await page.locator("#timeline").boundingBox();
	await page.locator("#timeline").scrollIntoViewIfNeeded();
	const b2 = await page.locator("#timeline").boundingBox();
	await page.mouse.move(b2.x + box.width / 2, b2.y + 4);
	await page.mouse.wheel(0, -300);
	const zoomed = await tl();
	assert.ok(zoomed.to - zoomed.from < 0.9 * (all.to - all.from), `not zoomed: ${zoomed.from}-${zoomed.to}`);
	/* the window, and another thread, in the URL: a reload shows them */
	await page.waitForFunction(() => /tl=/.test(location.hash));
	const before = await tl();
	await page.reload();
	await page.waitForSelector("body[data-ready]");
	const after = await tl();
	assert.strictEqual(after.thread, before.thread, "the thread after a reload");
	assert.ok(Math.abs(after.from - before.from) <= 1 && Math.abs(after.to - before.to) <= 1,
		  `window ${before.from}-${before.to}, after a reload ${after.from}-${after.to}`);
	await page.click("#timeline-reset");
	const back = await tl();
	assert.deepStrictEqual([back.from, back.to], [all.from, all.to]);
	assert.ok(!/tl=/.test(page.url()), "the window still in the URL after Reset zoom");
	await htmlDone(page);
}

// Time off the CPU is spread over the cells it lasted in: the cells add up
// to the time of the events, which is the capture's (the stacks') unless a
// record was lost; a selected range's flame graph weighs what its cells
// hold, to the ns. [sleeping] has the colour the SVG gives it.
async function checkHtmlOffcpu(browser, port, set) {
	const page = await openHtml(browser, port, set);
	assert.match(await page.textContent("#title"), /time off the CPU$/);
	const heat = await page.evaluate(() => window.flamebpfReport.heat());
	const total = await page.evaluate(() => window.flamebpfReport.total());
	const sum = (a) => a.reduce((x, y) => x + y, 0);
	assert.ok(Math.abs(sum(heat.values) - total) <= total * 0.01,
		  `the cells hold ${sum(heat.values)} ns, the capture ${total} ns`);
	await dragCells(page, [0, 5], [0, 30]);
	const part = await page.evaluate(() => window.flamebpfReport.total());
	const cells = sum(heat.values.slice(5, 31));
	assert.ok(part > 0 && Math.abs(part - cells) <= 1e-6 * cells + 1,
		  `0.1-0.62 s: ${part} ns in the flame graph, ${cells} ns in its cells`);
	const sleeping = (await htmlFrames(page)).find((f) => f.name === "[sleeping]");
	assert.ok(sleeping, "no [sleeping] frame");
	assert.strictEqual(sleeping.fill, "rgb(80,130,220)");
	await htmlDone(page);
}

// --wall: a sample stands for the period before it was taken, as the
// Chrome JSON draws it, so the timeline holds compute's time whole. Drawn
// from the sample on, it had lasted only until the thread's next block,
// most of a 10 ms compute at 99 Hz.
async function checkHtmlWall(browser, port, set) {
	const page = await openHtml(browser, port, set);
	assert.match(await page.textContent("#title"), /wall time, on and off the CPU$/);
	const threads = await page.$$eval("#thread option", (os) => os.map((o) => +o.value));
	let drawn = 0, want = 0;
	for (const t of threads) {
		const tl = await page.evaluate((v) => window.flamebpfReport.timeline(v), t);
		drawn += tl.rects.filter((r) => r.name === "compute").reduce((x, r) => x + r.to - r.from, 0);
	}
	for (const [stack, n] of set.folded)
		if (stack.split(";").includes("compute"))
			want += n;
	assert.ok(want > 0, "no compute time in the folded output");
	assert.ok(Math.abs(drawn - want) <= 0.03 * want,
		  `compute drawn for ${drawn} ns in the timeline, ${want} ns folded`);
	await htmlDone(page);
}

// Names are the program's, not the page's: markup in them is text. A perf
// script whose frames and command are markup, rendered to a page: no
// element is made of them (an img would also be a request), no script
// runs, and the table shows them as the folded output names them (the
// perf reader drops argument lists, as stackcollapse-perf.pl does).
const HOSTILE = ["<img src=x onerror=alert(1)>", "</script><script>alert(2)</script>",
		 "a&amp;b\"c'<!--"];

function hostilePerf() {
	let text = "";
	HOSTILE.forEach((name, i) => {
		text += `<b>evil</b> 7/7 [000] 1.00${i}000: 1001001 cpu-clock:\n` +
			`\t40100${i} ${name}+0x4 (/bin/x)\n\t401000 main+0x10 (/bin/x)\n\n`;
	});
	return text;
}

async function checkHtmlHostile(browser, port) {
	fs.writeFileSync(path.join(OUT, "hostile.perf"), hostilePerf());
	flamebpf(["render", path.join(OUT, "hostile.perf"), "-o", path.join(OUT, "hostile.html"),
		  "-o", path.join(OUT, "hostile.folded")]);
	const want = [...readFolded(path.join(OUT, "hostile.folded")).keys()]
		.map((st) => st.split(";").pop());
	const opened = await openHtml(browser, port, { name: "hostile" });
	const table = await tableNames(opened);
	assert.strictEqual(want.length, HOSTILE.length);
	for (const name of want)
		assert.ok(table.includes(name), `'${name}' not in the table: ${table}`);
	assert.strictEqual(await opened.locator("img, b").count(), 0, "markup from a name");
	assert.match(await opened.textContent("#details"), /^\s*$/);
	const roots = (await htmlFrames(opened)).filter((f) => f.depth === 1).map((f) => f.name);
	assert.deepStrictEqual(roots, ["<b>evil</b>"]);
	await htmlDone(opened);
}

// Opened as a file, as a user opens it, with every request refused: it
// still draws, and asked for nothing even when used.
async function checkHtmlOffline(browser, port, set) {
	const page = await newPage(browser);
	const url = "file://" + path.join(OUT, set.name + ".html"), asked = [];
	await page.route("**/*", (route) => {
		if (route.request().url() === url)
			return route.continue();
		asked.push(route.request().url());
		return route.abort();
	});
	await page.goto(url);
	await page.waitForSelector("body[data-ready]");
	await dragCells(page, [0, 0], [0, 10]);
	const t = htmlZoomTarget(await htmlFrames(page));
	await page.mouse.click(...await frameCentre(page, t));
	await page.fill("#search", ".");
	await page.press("#search", "Enter");
	assert.deepStrictEqual(asked, [], "requests");
	assert.deepStrictEqual(page.errors, [], "script errors");
}

// ---- what cannot be tested here ----

// chrome://tracing is a debug page in recent Chromium: off unless the
// internal pages are enabled (chrome://chrome-urls). Tried with them on.
async function checkChromeTracing(chromium) {
	const dir = fs.mkdtempSync(path.join(OUT, "profile-"));
	fs.writeFileSync(path.join(dir, "Local State"), JSON.stringify({ internal_only_uis_enabled: true }));
	const ctx = await chromium.launchPersistentContext(dir, { executablePath: CHROMIUM,
								  args: ["--no-sandbox"] });
	let why = null;
	try {
		const page = await ctx.newPage();
		await page.goto("chrome://tracing");
		why = "chrome://tracing opens, but this test does not drive its trace viewer yet";
	} catch (e) {
		why = `chrome://tracing is not in this Chromium (${ctx.browser().version()}): ` +
		      e.message.split("\n")[0].replace(/^page.goto: /, "");
	} finally {
		await ctx.close();
		fs.rmSync(dir, { recursive: true, force: true });
	}
	throw new Skip(why);
}

function checkPerfetto() {
	throw new Skip("Perfetto's UI and trace_processor are published neither on the npm " +
		       "registry nor in Debian (no package 'perfetto'); they are downloaded from " +
		       "Google's servers, which this machine cannot reach");
}

// ---- the runner: cmocka's output, which tests/run.sh reads ----

function tests(sets, chromium) {
	const t = [];
	for (const s of sets) {
		const need = (f) => (b, p) => (s.skip ? Promise.reject(new Skip(s.skip)) : f(b, p, s));
		if (s.name === "system") {
			t.push([`html_processes_${s.name}`, need(checkHtmlProcesses)]);
			continue;
		}
		if (s.name === "usdt") {
			t.push([`html_timeline_hits_${s.name}`, need(checkHtmlHits)]);
			continue;
		}
		if (s.name === "wall") {
			t.push([`html_timeline_${s.name}`, need(checkHtmlWall)]);
			continue;
		}
		if (s.name !== "phases" && s.name !== "offcpu") {
			t.push([`speedscope_folded_${s.name}`, need(checkFolded)]);
			if (s.name !== "uprobe")
				t.push([`speedscope_perf_${s.name}`, need(checkPerf)]);
			t.push([`speedscope_chrome_${s.name}`,
				need((b, p, set) => checkChrome(b, p, set, set.name === "uprobe"))]);
		}
		if (s.name !== "sampling" && s.name !== "phases" && s.name !== "offcpu") {
			t.push([`svg_hover_${s.name}`, need(checkSvgHover)]);
			t.push([`svg_zoom_${s.name}`, need(checkSvgZoom)]);
			t.push([`svg_search_${s.name}`, need(checkSvgSearch)]);
		}
		if (s.name === "data")
			t.push([`svg_url_state_${s.name}`, need(checkSvgUrl)]);
		if (s.name !== "sampling")
			for (const [what, fn] of [["hover", checkHtmlHover], ["zoom", checkHtmlZoom],
						  ["search", checkHtmlSearch], ["table", checkHtmlTable],
						  ["sandwich", checkHtmlSandwich]])
				t.push([`html_${what}_${s.name}`, need(fn)]);
		if (s.name === "data")
			t.push([`html_offline_${s.name}`, need(checkHtmlOffline)]);
		if (s.name === "data" || s.name === "phases")
			t.push([`html_url_${s.name}`, need(checkHtmlUrl)]);
		if (s.name === "data") {
			t.push([`html_processes_${s.name}`, need(checkHtmlProcesses)]);
			t.push([`html_diff_${s.name}`, need(checkHtmlDiff)]);
		}
		if (s.name === "offcpu")
			t.push([`html_offcpu_${s.name}`, need(checkHtmlOffcpu)]);
		if (s.name === "phases" || s.name === "uprobe")
			t.push([`html_timeline_${s.name}`, need(checkHtmlTimeline)]);
		if (s.name === "phases") {
			t.push([`html_heatmap_${s.name}`, need(checkHtmlHeatmap)]);
			t.push([`html_select_${s.name}`, need(checkHtmlSelect)]);
		}
	}
	t.push(["html_hostile_names", checkHtmlHostile]);
	t.push(["chrome_tracing", () => checkChromeTracing(chromium)]);
	t.push(["perfetto", checkPerfetto]);
	return t;
}

function withTimeout(p, ms) {
	let timer;
	return Promise.race([p, new Promise((_, rej) => {
		timer = setTimeout(() => rej(new Error(`timed out after ${ms / 1000} s`)), ms);
	})]).finally(() => clearTimeout(timer));
}

async function run(list, browser, port) {
	const res = { passed: [], failed: [], skipped: [] };
	console.log(`[==========] Running ${list.length} test(s).`);
	for (const [name, fn] of list) {
		console.log(`[ RUN      ] ${name}`);
		try {
			await withTimeout(Promise.resolve().then(() => fn(browser, port)), 2 * TIMEOUT_MS);
			console.log(`[       OK ] ${name}`);
			res.passed.push(name);
		} catch (e) {
			if (e instanceof Skip) {
				console.log(`SKIP: ${e.message}`);
				console.log(`[  SKIPPED ] ${name}`);
				res.skipped.push(name);
			} else {
				console.log(String(e.stack || e).split("\n").slice(0, 8).join("\n"));
				console.log(`[  FAILED  ] ${name}`);
				res.failed.push(name);
			}
		}
		for (const ctx of browser.contexts())
			await ctx.close();
	}
	return res;
}

function summary(res, total) {
	console.log(`[==========] ${total} test(s) run.`);
	console.log(`[  PASSED  ] ${res.passed.length} test(s).`);
	if (res.skipped.length) {
		console.log(`[  SKIPPED ] ${res.skipped.length} test(s), listed below:`);
		res.skipped.forEach((n) => console.log(`[  SKIPPED ] ${n}`));
	}
	if (res.failed.length) {
		console.log(`[  FAILED  ] ${res.failed.length} test(s), listed below:`);
		res.failed.forEach((n) => console.log(`[  FAILED  ] ${n}`));
	}
}

// Without the browser or the modules nothing can run: one skip, said why.
function missing() {
	if (Number(process.versions.node.split(".")[0]) < 20)
		return `node ${process.versions.node} is too old for playwright-core (20 or later)`;
	if (!fs.existsSync(path.join(MODULES, "playwright-core")) || !fs.existsSync(SPEEDSCOPE))
		return `the node modules are not in ${MODULES} (tools/deps.sh --test installs them)`;
	if (!fs.existsSync(CHROMIUM))
		return `no Chromium at ${CHROMIUM} (tools/deps.sh --test installs it)`;
	if (!fs.existsSync(FLAMEBPF))
		return `no ${FLAMEBPF}: build it first (make)`;
	return null;
}

async function main() {
	const why = missing();
	if (why) {
		console.log(`SKIP: ${why}`);
		summary({ passed: [], failed: [], skipped: ["viewers"] }, 0);
		return 0;
	}
	const { chromium } = require(path.join(MODULES, "playwright-core"));
	fs.rmSync(OUT, { recursive: true, force: true });
	fs.mkdirSync(OUT, { recursive: true });
	const sets = [makeSet("data", fromData, ".perf"),
		      tryCapture("sampling", fromSampling, ".perf"),
		      tryCapture("uprobe", fromUprobes, ".json"),
		      tryCapture("phases", fromPhases, ".perf"),
		      tryCapture("offcpu", fromOffcpu, ".perf"),
		      tryCapture("system", fromSystem, ".perf"),
		      tryCapture("usdt", fromUsdt, ".json"),
		      tryCapture("wall", fromWall, ".perf")];
	const only = process.argv.slice(2);
	const list = tests(sets, chromium).filter(([n]) => !only.length || only.includes(n));
	const server = await serve();
	const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
	let res;
	try {
		res = await run(list, browser, server.address().port);
	} finally {
		await browser.close();
		server.close();
	}
	summary(res, list.length);
	return res.failed.length ? 1 : 0;
}

main().then((rc) => (process.exitCode = rc), (e) => {
	console.log(String(e.stack || e));
	console.log("[  FAILED  ] 1 test(s), listed below:\n[  FAILED  ] viewers");
	process.exitCode = 1;
});

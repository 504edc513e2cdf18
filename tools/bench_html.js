// Open times in headless Chromium for tools/bench_html.sh: each file is
// served from a local HTTP server (as a user's browser would fetch it) and
// opened RUNS times in a fresh page, timed from the navigation to the first
// flame graph drawn:
//   html        flamebpf's report: until the page says it is ready
//               (body[data-ready], set after the heatmap, graph and table
//               are drawn);
//   speedscope  speedscope's web app with #profileURL= the file: until its
//               toolbar shows the profile (its Export button), or its
//               error screen, which is a failure.
// Prints one line per run, tab-separated: FILE VIEWER RUN MS, where MS is
// "timeout after MS ms" past TIMEOUT_MS and "error: ..." on a failure.
//
//   node tools/bench_html.js DIR RUNS TIMEOUT_MS VIEWER:FILE...
//   VIEWERS_MODULES (build/viewers/node_modules), CHROMIUM (/usr/bin/chromium)
"use strict";
const fs = require("fs");
const http = require("http");
const path = require("path");

const ROOT = path.resolve(__dirname, "..");
const MODULES = path.resolve(ROOT, process.env.VIEWERS_MODULES || "build/viewers/node_modules");
const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
const SPEEDSCOPE = path.join(MODULES, "speedscope/dist/release");
const TYPES = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css",
		".json": "application/json", ".wasm": "application/wasm" };

// /data/ from dir, /speedscope/ from its release; nothing else.
function serve(dir) {
	const server = http.createServer((req, res) => {
		const url = decodeURIComponent(req.url.split(/[?#]/)[0]);
		const [base, rel] = url.startsWith("/data/") ? [dir, url.slice(6)]
			: url.startsWith("/speedscope/") ? [SPEEDSCOPE, url.slice(12)] : [null, null];
		const file = base && path.resolve(base, rel);
		if (!file || !file.startsWith(base + path.sep) || !fs.existsSync(file)) {
			res.writeHead(404);
			res.end();
			return;
		}
		res.writeHead(200, { "Content-Type": TYPES[path.extname(file)] || "text/plain" });
		fs.createReadStream(file).pipe(res);
	});
	return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

async function drawnHtml(page, url, timeout) {
	await page.goto(url, { timeout });
	await page.waitForSelector("body[data-ready]", { timeout });
}

async function drawnSpeedscope(page, url, timeout) {
	const until = Date.now() + timeout;
	await page.goto(url, { timeout });
	for (;;) {
		const text = await page.innerText("body");
		if (/Something went wrong/.test(text))
			throw new Error("speedscope's error screen");
		if (/Export/.test(text))
			return;
		if (Date.now() > until)
			throw new Error("timeout");
		await page.waitForTimeout(20);
	}
}

async function once(browser, port, viewer, file, timeout) {
	const page = await browser.newPage();
	const url = viewer === "html" ? `http://127.0.0.1:${port}/data/${file}` :
		`http://127.0.0.1:${port}/speedscope/index.html#profileURL=` +
		encodeURIComponent(`/data/${file}`);
	page.on("dialog", (d) => d.dismiss());
	page.setDefaultTimeout(timeout); /* a busy page answers innerText late */
	await page.setViewportSize({ width: 1300, height: 1000 });
	const t0 = Date.now();
	try {
		await (viewer === "html" ? drawnHtml : drawnSpeedscope)(page, url, timeout);
		return String(Date.now() - t0);
	} catch (e) {
		if (/imeout/.test(e.message))
			return "timeout after " + (Date.now() - t0) + " ms";
		return "error: " + e.message.split("\n")[0];
	} finally {
		await page.close();
	}
}

async function main() {
	const [dir, runs, timeout, ...specs] = process.argv.slice(2);
	const { chromium } = require(path.join(MODULES, "playwright-core"));
	const server = await serve(path.resolve(dir));
	const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
	try {
		for (const spec of specs) {
			const [viewer, file] = [spec.slice(0, spec.indexOf(":")), spec.slice(spec.indexOf(":") + 1)];
			for (let r = 1; r <= +runs; r++) {
				const ms = await once(browser, server.address().port, viewer, file, +timeout);
				console.log([file, viewer, r, ms].join("\t"));
				if (ms.startsWith("timeout"))
					break; /* once is enough to know */
			}
		}
	} finally {
		await browser.close();
		server.close();
	}
}

main().catch((e) => {
	console.error(`bench_html.js: ${e.message}`);
	process.exitCode = 1;
});

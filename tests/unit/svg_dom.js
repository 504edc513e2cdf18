// Runs the script of an SVG written by flamebpf (node svg_dom.js FILE.svg)
// against a minimal DOM built from the SVG's frames, and checks what a
// user would see: click-zoom, reset, regex search with the matched share,
// and the state restored from the URL. Used by tests/unit/test_out_svg.c on
// the "basic" profile: app;main;a 600, app;main;b 300, app;main 100.
"use strict";
const assert = require("assert");
const fs = require("fs");
const vm = require("vm");

const text = fs.readFileSync(process.argv[2], "utf8");
const script = text.match(/<!\[CDATA\[\n([\s\S]*)\]\]><\/script>/)[1];

function unescape(s) {
	const ent = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };
	return s.replace(/&(\w+);/g, (m, e) => ent[e]);
}

function attrs(s) {
	const a = {};
	for (const m of (s || "").matchAll(/([\w:-]+)="([^"]*)"/g))
		a[m[1]] = unescape(m[2]);
	return a;
}

class El {
	constructor(tag, a, content) {
		this.tagName = tag;
		this.attrs = a || {};
		this.children = [];
		this.parentNode = null;
		this.textContent = content || "";
		this.listeners = {};
	}
	getAttribute(k) {
		return k in this.attrs ? this.attrs[k] : null;
	}
	setAttribute(k, v) {
		this.attrs[k] = String(v);
	}
	appendChild(c) {
		c.parentNode = this;
		this.children.push(c);
		return c;
	}
	getElementsByTagName(tag) {
		const out = [];
		const walk = (e) => e.children.forEach((c) => {
			if (c.tagName === tag)
				out.push(c);
			walk(c);
		});
		walk(this);
		return out;
	}
	addEventListener(ev, f) {
		this.listeners[ev] = f;
	}
}

// The document: the text elements with an id, and the frames.
function load(search) {
	const byId = {};
	for (const m of text.matchAll(/<text id="(\w+)"([^>]*)>([^<]*)<\/text>/g))
		byId[m[1]] = new El("text", attrs(m[2]), unescape(m[3]));
	const frames = new El("g", attrs(text.match(/<g id="frames"([^>]*)>/)[1]));
	const re = /<g( fg:x[^>]*)><title>(.*?)<\/title><rect([^>]*)\/>(?:<text([^>]*)>(.*?)<\/text>)?<\/g>/g;
	for (const m of text.matchAll(re)) {
		const g = frames.appendChild(new El("g", attrs(m[1])));
		g.appendChild(new El("title", {}, unescape(m[2])));
		g.appendChild(new El("rect", attrs(m[3])));
		if (m[4] !== undefined)
			g.appendChild(new El("text", attrs(m[4]), unescape(m[5])));
	}
	byId.frames = frames;
	const win = { listeners: {}, answer: null, url: null };
	win.addEventListener = (ev, f) => (win.listeners[ev] = f);
	win.prompt = () => win.answer;
	const ctx = {
		document: {
			getElementById: (id) => byId[id] || null,
			createElementNS: (ns, tag) => new El(tag),
		},
		window: win,
		history: { replaceState: (s, t, url) => (win.url = url) },
		location: { search: search, pathname: "/f.svg", hash: "" },
	};
	vm.runInNewContext(script, ctx);
	return { byId, frames, win };
}

function frame(d, name) {
	const g = d.frames.children.find((g) => g.children[0].textContent.startsWith(name + " ("));
	assert.ok(g, "no frame " + name);
	const r = g.children[1];
	return { g, r, x: +r.getAttribute("x"), w: +r.getAttribute("width"), cls: g.getAttribute("class") || "" };
}

const d = load("");
const a = frame(d, "a"), b = frame(d, "b"), aFill = a.r.getAttribute("fill");
assert.strictEqual(a.w, 708);

// Click a: it fills the width, its ancestors too (faded), its sibling hides.
d.frames.listeners.click({ target: a.r });
assert.deepStrictEqual([frame(d, "a").x, frame(d, "a").w, frame(d, "a").cls], [10, 1180, ""]);
assert.strictEqual(frame(d, "b").cls, "hide");
assert.deepStrictEqual([frame(d, "main").w, frame(d, "main").cls], [1180, "parent"]);
assert.strictEqual(d.byId.unzoom.getAttribute("class"), "");
assert.strictEqual(d.win.url, "/f.svg?x=0&y=" + a.r.getAttribute("y"));

// Search a|b: 90% of the whole, all of the zoomed frame; matches highlighted.
d.win.answer = "^(a|b)$";
d.win.listeners.keydown({ key: "f", ctrlKey: true, preventDefault() {} });
assert.strictEqual(d.byId.matched.textContent, "Matched: 90.0% (100.0% of the zoomed frame)");
assert.strictEqual(frame(d, "a").r.getAttribute("fill"), "rgb(230,0,230)");
assert.ok(d.win.url.endsWith("&s=%5E(a%7Cb)%24"));

// Nested matches count once: main holds a and b.
d.win.answer = "a";
d.byId.search.listeners.click();
d.byId.search.listeners.click();
assert.strictEqual(d.byId.matched.textContent, "Matched: 100.0% (100.0% of the zoomed frame)");

// Reset zoom, then search.
d.byId.unzoom.listeners.click();
assert.deepStrictEqual([frame(d, "a").w, frame(d, "b").w, frame(d, "b").cls], [708, 354, ""]);
d.win.listeners.keydown({ key: "Escape" });
assert.strictEqual(frame(d, "a").r.getAttribute("fill"), aFill);
assert.strictEqual(d.byId.matched.textContent, " ");
assert.strictEqual(d.win.url, "/f.svg");

// The state comes back from the URL.
const e = load("?x=600&y=" + b.r.getAttribute("y") + "&s=" + encodeURIComponent("^a$"));
assert.deepStrictEqual([frame(e, "b").x, frame(e, "b").w, frame(e, "a").cls], [10, 1180, "hide"]);
assert.strictEqual(e.byId.matched.textContent, "Matched: 60.0% (0.0% of the zoomed frame)");
assert.strictEqual(frame(e, "b").g.children[2].getAttribute("x"), "13.0");
console.log("ok");

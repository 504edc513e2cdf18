// The behaviour of the SVG flame graphs flamebpf writes: hover details,
// click to zoom, regex search with the matched share, the state kept in the
// URL (?x=..&y=..&s=..). src/out_svg.c embeds this file in a CDATA section,
// so it must never contain the three characters that end one (the build
// checks). Every frame is a g element with fg:x and fg:w (start and width
// in profile units, exact at any zoom) holding a title ("NAME (VALUE, PCT)"),
// a rect and, when the name fits, a text.
"use strict";
(function () {
	var SVGNS = "http://www.w3.org/2000/svg";
	var HIGHLIGHT = "rgb(230,0,230)";
	var doc = document;
	var frames = doc.getElementById("frames");
	if (!frames)
		return;
	var details = doc.getElementById("details");
	var matched = doc.getElementById("matched");
	var unzoomBtn = doc.getElementById("unzoom");
	var searchBtn = doc.getElementById("search");
	var total = attr(frames, "fg:total") || 1;
	var pad = attr(frames, "fg:pad");
	var width = attr(frames, "fg:width");
	var charW = attr(frames, "fg:charw");
	var textDy = attr(frames, "fg:ty");
	var gs = Array.prototype.slice.call(frames.getElementsByTagName("g"));
	var n = gs.length;
	var X = new Array(n), W = new Array(n), Y = new Array(n);
	var names = new Array(n), fills = new Array(n);
	var zoomed = -1, term = null;

	function attr(el, name) {
		return +el.getAttribute(name);
	}

	function child(g, tag) {
		return g.getElementsByTagName(tag)[0];
	}

	for (var i = 0; i < n; i++) {
		gs[i].fgIndex = i;
		X[i] = attr(gs[i], "fg:x");
		W[i] = attr(gs[i], "fg:w");
		Y[i] = attr(child(gs[i], "rect"), "y");
	}

	function titleOf(i) {
		return child(gs[i], "title").textContent;
	}

	// The title's last " (" starts the value the writer appended.
	function nameOf(i) {
		if (names[i] === undefined) {
			var t = titleOf(i), cut = t.lastIndexOf(" (");
			names[i] = cut < 0 ? t : t.slice(0, cut);
		}
		return names[i];
	}

	function label(i, x, w) {
		var g = gs[i], t = child(g, "text"), fit = Math.floor((w - 6) / charW), s = "";
		if (fit >= 3) {
			s = nameOf(i);
			if (s.length > fit)
				s = s.slice(0, fit - 2) + "..";
		}
		if (!t) {
			if (!s)
				return;
			t = doc.createElementNS(SVGNS, "text");
			t.setAttribute("y", (Y[i] + textDy).toFixed(1));
			g.appendChild(t);
		}
		t.setAttribute("x", (x + 3).toFixed(1));
		t.textContent = s;
	}

	function place(i, x, w, cls) {
		var r = child(gs[i], "rect");
		gs[i].setAttribute("class", cls);
		if (cls === "hide")
			return;
		r.setAttribute("x", x.toFixed(1));
		r.setAttribute("width", w.toFixed(1));
		label(i, x, w);
	}

	// Ancestors (lower, and spanning the frame) fill the width, faded;
	// the frame and what lies above it within its span are stretched; the
	// rest is hidden.
	function zoom(i) {
		var zx = X[i], zw = W[i], scale = width / zw;
		for (var j = 0; j < n; j++) {
			var x0 = X[j], x1 = X[j] + W[j];
			if (Y[j] > Y[i])
				place(j, pad, width, x0 <= zx && x1 >= zx + zw ? "parent" : "hide");
			else if (x0 >= zx && x1 <= zx + zw)
				place(j, pad + (x0 - zx) * scale, W[j] * scale, "");
			else
				place(j, 0, 0, "hide");
		}
		zoomed = i;
		unzoomBtn.setAttribute("class", "");
		showMatched();
		save();
	}

	function unzoom() {
		var scale = width / total;
		for (var j = 0; j < n; j++)
			place(j, pad + X[j] * scale, W[j] * scale, "");
		zoomed = -1;
		unzoomBtn.setAttribute("class", "hide");
		showMatched();
		save();
	}

	// The union of the spans of the matches, so that a match nested in
	// another one is not counted twice; clipped to [lo, hi).
	function matchedWeight(lo, hi) {
		var spans = [], sum = 0, end = lo;
		for (var j = 0; j < n; j++)
			if (fills[j] !== undefined)
				spans.push(j);
		spans.sort(function (a, b) {
			return X[a] - X[b];
		});
		for (var k = 0; k < spans.length; k++) {
			var x0 = Math.max(X[spans[k]], end), x1 = Math.min(X[spans[k]] + W[spans[k]], hi);
			if (x1 > x0) {
				sum += x1 - x0;
				end = x1;
			}
		}
		return sum;
	}

	function pct(part, whole) {
		return (100 * part / whole).toFixed(1) + "%";
	}

	function showMatched() {
		if (term === null) {
			matched.textContent = " ";
			return;
		}
		var s = "Matched: " + pct(matchedWeight(0, total), total);
		if (zoomed >= 0)
			s += " (" + pct(matchedWeight(X[zoomed], X[zoomed] + W[zoomed]), W[zoomed]) +
			     " of the zoomed frame)";
		matched.textContent = s;
	}

	function highlight(j, on) {
		var r = child(gs[j], "rect");
		if (on && fills[j] === undefined) {
			fills[j] = r.getAttribute("fill");
			r.setAttribute("fill", HIGHLIGHT);
		} else if (!on && fills[j] !== undefined) {
			r.setAttribute("fill", fills[j]);
			fills[j] = undefined;
		}
	}

	function search(t) {
		var re;
		try {
			re = new RegExp(t);
		} catch (e) {
			matched.textContent = "Bad regular expression: " + t;
			return;
		}
		for (var j = 0; j < n; j++)
			highlight(j, re.test(nameOf(j)));
		term = t;
		searchBtn.setAttribute("class", "on");
		searchBtn.textContent = "Reset Search";
		showMatched();
		save();
	}

	function resetSearch() {
		for (var j = 0; j < n; j++)
			highlight(j, false);
		term = null;
		searchBtn.setAttribute("class", "");
		searchBtn.textContent = "Search";
		showMatched();
		save();
	}

	function ask() {
		var t = window.prompt("Search for (regular expression):", term === null ? "" : term);
		if (t)
			search(t);
		else if (t === "")
			resetSearch();
	}

	// The frame as its rect's y (depth) and its fg:x, which no other frame shares.
	function save() {
		var q = [];
		if (zoomed >= 0)
			q.push("x=" + X[zoomed], "y=" + Y[zoomed]);
		if (term !== null)
			q.push("s=" + encodeURIComponent(term));
		try {
			history.replaceState(null, "", location.pathname + (q.length ? "?" + q.join("&") : "") +
					     location.hash);
		} catch (e) {
			// file: URLs in some browsers; the state is only a convenience
		}
	}

	function load() {
		var q = {};
		location.search.slice(1).split("&").forEach(function (kv) {
			var eq = kv.indexOf("=");
			try {
				if (eq > 0)
					q[kv.slice(0, eq)] = decodeURIComponent(kv.slice(eq + 1));
			} catch (e) {
				// a malformed escape: ignore that parameter
			}
		});
		if (q.x !== undefined && q.y !== undefined)
			for (var j = 0; j < n; j++)
				if (X[j] === +q.x && Y[j] === +q.y) {
					zoom(j);
					break;
				}
		if (q.s)
			search(q.s);
	}

	function frameOf(el) {
		for (; el && el !== frames; el = el.parentNode)
			if (el.fgIndex !== undefined)
				return el.fgIndex;
		return -1;
	}

	frames.addEventListener("mouseover", function (e) {
		var j = frameOf(e.target);
		if (j >= 0)
			details.textContent = titleOf(j);
	});
	frames.addEventListener("mouseout", function () {
		details.textContent = " ";
	});
	frames.addEventListener("click", function (e) {
		var j = frameOf(e.target);
		if (j === 0)
			unzoom();
		else if (j > 0)
			zoom(j);
	});
	unzoomBtn.addEventListener("click", unzoom);
	searchBtn.addEventListener("click", function () {
		if (term === null)
			ask();
		else
			resetSearch();
	});
	window.addEventListener("keydown", function (e) {
		if (e.key === "F3" || ((e.ctrlKey || e.metaKey) && (e.key === "f" || e.key === "F"))) {
			e.preventDefault();
			ask();
		} else if (e.key === "Escape" && term !== null) {
			resetSearch();
		}
	});
	load();
})();

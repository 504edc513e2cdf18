// The HTML report flamebpf writes (src/formats/out_html.c compiles this
// file into the page; the build refuses it if it holds the characters that
// end a script element). It reads the profile from the JSON in the element
// #flamebpf-data (its tables are described in src/formats/html_data.h) and
// draws, with no network and no framework:
//   - the subsecond heatmap: a column per second, a row per 1/ROWS s, each
//     cell coloured by what happened in it; click or drag to select a time
//     range (in time order, from the first cell to the last);
//   - the flame graph of the selection (the whole capture, from the
//     stacks' weights, when nothing is selected): hover, click to zoom,
//     regex search with the matched share, reset; colours and names are the
//     SVG's (the writer sends each name's colour);
//   - the timeline of a thread (a flame chart): its traced calls as they
//     ran, or its samples (blocks off the CPU) merged into runs, over the
//     selection; the wheel zooms, a drag pans;
//   - the functions of the selection by self and total, sortable;
//   - the sandwich of a function (a click in the table, a shift-click in
//     the graph): its callers merged above it, its callees below;
//   - the capture's metadata;
//   - a process picker where the capture has several: the heatmap, graph
//     and table of one process, or of all;
//   - written by flamebpf diff (D.diff): the new profile's graph coloured
//     by the change against the base, as the differential SVG colours it
//     (red grew, blue shrank), and diff's table, regressions first;
//   - the view (selection, rows, zoom, search, icicle, sandwich, process)
//     in the URL's hash,
//     so that a link or a reload opens the same view.
// window.flamebpfReport gives what is drawn to scripts (the tests).
"use strict";
(function () {
	var FRAME_H = 16, FONT = "12px Verdana, sans-serif", CHAR_W = 7.08;
	var MIN_PX = 0.3; /* narrower frames, and their callees, are not drawn */
	var HIGHLIGHT = "rgb(230,0,230)";
	var TABLE_ROWS = 300;
	var HEAT_CELL_H = 6, HEAT_LEFT = 44, HEAT_BOTTOM = 18, HEAT_TOP = 4;
	var ROW_CHOICES = [10, 20, 25, 50, 100];
	var KIND_USER = 0, KIND_KERNEL = 1, KIND_ROOT = 2;

	var doc = document;
	var D = JSON.parse(doc.getElementById("flamebpf-data").textContent);
	var meta = D.meta, strings = D.strings, diff = D.diff || null;
	var isNs = meta.unit === "ns";

	// ---- the tables ----

	var nfuncs = D.funcs.length / 4;
	var fname = new Array(nfuncs), fmodule = new Array(nfuncs);
	var fkind = new Uint8Array(nfuncs), fcolor = new Array(nfuncs);
	for (var i = 0; i < nfuncs; i++) {
		fname[i] = strings[D.funcs[4 * i]];
		fmodule[i] = strings[D.funcs[4 * i + 1]];
		fkind[i] = D.funcs[4 * i + 2];
		fcolor[i] = rgbString(D.funcs[4 * i + 3]);
	}

	function rgbString(v) {
		return "rgb(" + (v >> 16 & 255) + "," + (v >> 8 & 255) + "," + (v & 255) + ")";
	}

	// Nodes: the merged call tree, a parent before its children; node N
	// (one past the last) is "all", the parent of the roots.
	var N = D.nodes.length / 2;
	var parent = new Int32Array(N), nfunc = new Int32Array(N), depth = new Int32Array(N + 1);
	for (i = 0; i < N; i++) {
		var up = D.nodes[2 * i];
		parent[i] = up < 0 ? N : up;
		nfunc[i] = D.nodes[2 * i + 1];
		depth[i] = depth[parent[i]] + 1;
	}

	// Children in name order (the SVG's sibling order), as one list.
	var childStart = new Int32Array(N + 2), childList = new Int32Array(N);
	(function () {
		var count = new Int32Array(N + 1), at, j;
		for (j = 0; j < N; j++)
			count[parent[j]]++;
		for (j = 0; j <= N; j++)
			childStart[j + 1] = childStart[j] + count[j];
		at = childStart.slice(0, N + 1);
		for (j = 0; j < N; j++)
			childList[at[parent[j]]++] = j;
		for (j = 0; j <= N; j++) {
			if (count[j] > 1) {
				var part = Array.prototype.slice.call(childList, childStart[j], childStart[j + 1]);
				part.sort(byName);
				childList.set(part, childStart[j]);
			}
		}
	})();

	function byName(a, b) {
		var x = fname[nfunc[a]], y = fname[nfunc[b]];
		return x < y ? -1 : x > y ? 1 : fkind[nfunc[a]] - fkind[nfunc[b]];
	}

	var nstacks = D.stacks.length / 4;
	var stackNode = new Int32Array(nstacks), stackWeight = new Float64Array(nstacks);
	var sampleWeight = new Float64Array(nstacks);
	for (i = 0; i < nstacks; i++) {
		stackNode[i] = D.stacks[4 * i];
		stackWeight[i] = D.stacks[4 * i + 2];
		/* 1, but a mean period where samples weigh theirs (render --period) */
		sampleWeight[i] = D.stacks[4 * i + 3] > 0 ? stackWeight[i] / D.stacks[4 * i + 3] : 1;
	}

	// Processes: a stack belongs to its thread's (by pid; by name where the
	// input had no pids). stackOn[s] says whether the chosen process (or
	// all, procChosen -1) holds stack s.
	var nthreads = D.threads.length / 4, procKeys = [], procOf = new Int32Array(nthreads);
	var procName = [], procW = [];
	(function () {
		var index = {};
		for (var t = 0; t < nthreads; t++) {
			var pid = D.threads[4 * t], comm = strings[D.threads[4 * t + 2]];
			var key = pid >= 0 ? "pid " + pid : "comm " + comm;
			if (!(key in index)) {
				index[key] = procKeys.length;
				procKeys.push(pid >= 0 ? String(pid) : comm);
				procName.push(pid >= 0 ? comm + " (" + pid + ")" : comm);
				procW.push(0);
			}
			procOf[t] = index[key];
		}
		for (var j = 0; j < nstacks; j++)
			procW[procOf[D.stacks[4 * j + 1]]] += stackWeight[j];
	})();
	var procChosen = -1, stackOn = new Uint8Array(nstacks).fill(1);

	function chooseProcess(k) {
		procChosen = k;
		for (var j = 0; j < nstacks; j++)
			stackOn[j] = k < 0 || procOf[D.stacks[4 * j + 1]] === k ? 1 : 0;
	}

	// Events, by time: each one's start in ns since the first, and its
	// weight in the profile's unit (a sample its stack's sample weight; a
	// traced call its self time; a block off the CPU, or a sample of
	// --wall, its length).
	// Where spread, its time begins at evFrom: a block off the CPU at its
	// timestamp, a sample of --wall (D.sampled) the period before it was
	// taken, which it stands for, as the Chrome JSON output draws it.
	var E = D.events, nev = E.n;
	var evTs = new Float64Array(nev), evStack = new Int32Array(nev);
	var evDur = new Float64Array(nev), evW = new Float64Array(nev);
	var evFrom = new Float64Array(nev);
	var spread = meta.mode === "off-cpu" || meta.mode === "wall";
	var maxDur = 0, span = 0;
	(function () {
		// times from the capture's start when known (lead: its first
		// event came that much later), so that the heatmap's columns are
		// its seconds, as the SVG heatmap's are
		var t = E.lead || 0, sampled = new Uint8Array(nstacks);
		(D.sampled || []).forEach(function (s) {
			sampled[s] = 1;
		});
		for (var j = 0; j < nev; j++) {
			t += E.dt[j];
			evTs[j] = t;
			evStack[j] = E.stack[j];
			evDur[j] = E.dur ? E.dur[j] : 0;
			evFrom[j] = sampled[evStack[j]] ? Math.max(0, t - evDur[j]) : t;
			evW[j] = meta.mode === "trace" ? E.self[j] : spread ? evDur[j]
				: E.w ? E.w[j] : sampleWeight[evStack[j]];
			if (evDur[j] > maxDur)
				maxDur = evDur[j];
			var end = evFrom[j] + (spread ? evDur[j] : 0);
			if (end > span)
				span = end;
		}
	})();

	// ---- formatting ----

	function fmtCount(v) {
		return Math.round(v).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ",");
	}

	function fmtNs(ns) {
		if (ns >= 1e9)
			return (ns / 1e9).toFixed(3) + " s";
		if (ns >= 1e6)
			return (ns / 1e6).toFixed(2) + " ms";
		if (ns >= 1e3)
			return (ns / 1e3).toFixed(1) + " us";
		return Math.round(ns) + " ns";
	}

	function fmtWeight(v) {
		if (isNs)
			return fmtNs(v);
		return fmtCount(v) + (Math.round(v) === 1 ? " sample" : " samples");
	}

	function pct(part, whole) {
		return (whole > 0 ? 100 * part / whole : 0).toFixed(2) + "%";
	}

	function el(tag, attrs, text) {
		var e = doc.createElement(tag);
		for (var k in attrs || {})
			e.setAttribute(k, attrs[k]);
		if (text !== undefined)
			e.textContent = text;
		return e;
	}

	function what() {
		if (meta.mode === "trace")
			return "wall time of traced calls";
		if (meta.mode === "off-cpu")
			return "time off the CPU";
		if (meta.mode === "wall")
			return "wall time, on and off the CPU";
		return (meta.event || "CPU") + " samples";
	}

	// ---- the page ----

	var ui = {};

	function build() {
		var root = doc.getElementById("report");
		root.textContent = "";
		doc.title = meta.title || "flamebpf: " + (diff ? "diff " + diff.base + " " + diff.new :
							   meta.cmdline || what());
		root.appendChild(el("h1", { id: "title" }, meta.title ||
				    (diff ? "Differential flame graph: " : "Flame graph: ") + what()));
		root.appendChild(el("div", { id: "subtitle" }, diff ? diffSubtitle() : subtitle()));
		/* a diff has no time axis: its graph is of the whole profiles */
		var heatBox = el("div", { id: "heat-section" });
		if (diff)
			heatBox.setAttribute("hidden", "");
		root.appendChild(heatBox);
		buildHeat(heatBox);
		buildFlame(root);
		if (!diff && nev)
			buildTimeline(root);
		if (diff)
			buildDiffTable(root);
		buildTable(root);
		buildSandwich(root);
		buildMeta(root);
	}

	function diffSubtitle() {
		return "base " + diff.base + " (" + fmtWeight(diff.totals[0]) + "), new " + diff.new +
			" (" + fmtWeight(diff.totals[1]) + "): the new profile; red: a larger share " +
			"than in the base, blue: a smaller one; frames only in the base are not drawn";
	}

	// diff's table, as it ordered it: regressions first.
	function buildDiffTable(root) {
		root.appendChild(el("h2", { id: "diff-title" }, "Changes, regressions first (" +
				    diff.test + "; a regression grew by more than " + diff.threshold +
				    (diff.absolute ? "%" : " points") + ")"));
		var t = el("table", { id: "diff" }), head = el("tr");
		["change", "incl% base", "incl% new", "p-value", "verdict", "function"].forEach(function (h) {
			head.appendChild(el("th", { "class": h === "function" ? "name" : "" }, h));
		});
		var thead = el("thead");
		thead.appendChild(head);
		t.appendChild(thead);
		ui.diffBody = el("tbody");
		diff.funcs.forEach(function (row) {
			ui.diffBody.appendChild(diffRow(row));
		});
		t.appendChild(ui.diffBody);
		var box = el("div", { "class": "table-box" });
		box.appendChild(t);
		root.appendChild(box);
		ui.diffBody.addEventListener("click", function (ev) {
			var tr = ev.target.closest("tr"), f = tr ? funcNamed(tr.getAttribute("data-name")) : -1;
			if (f < 0)
				return;
			search("^" + fname[f].replace(/[.*+?^${}()|[\]\\]/g, "\\$&") + "$");
			showSandwich(f);
		});
	}

	function fmtChange(c) {
		if (c === null)
			return "new";
		return (c >= 0 ? "+" : "") + c.toFixed(1) + (diff.absolute ? "%" : " pt");
	}

	function diffRow(row) {
		var tr = el("tr", { "data-name": row[0], "class": row[5] === "REGRESSION" ? "regression" : "" });
		tr.appendChild(el("td", {}, fmtChange(row[3])));
		tr.appendChild(el("td", {}, row[1].toFixed(1) + "%"));
		tr.appendChild(el("td", {}, row[2].toFixed(1) + "%"));
		tr.appendChild(el("td", {}, row[4] >= 1 ? "-" : row[4] < 1e-16 ? "<1e-16" : row[4].toPrecision(2)));
		tr.appendChild(el("td", {}, row[5]));
		tr.appendChild(el("td", { "class": "name", title: row[0] }, row[0]));
		return tr;
	}

	function subtitle() {
		var parts = [];
		if (meta.cmdline)
			parts.push(meta.cmdline);
		if (meta.freq)
			parts.push(meta.freq + " Hz");
		if (meta.secs > 0)
			parts.push(meta.secs.toFixed(2) + " s");
		if (meta.ncpus)
			parts.push(meta.ncpus + " CPUs");
		if (meta.host)
			parts.push(meta.host);
		if (meta.kernel)
			parts.push("Linux " + meta.kernel);
		if (meta.losses)
			parts.push("lost: " + meta.losses);
		return parts.join(", ");
	}

	function buildHeat(root) {
		root.appendChild(el("h2", {}, "Heatmap: " + heatWhat() + ", by second and part of a second"));
		var bar = el("div", { "class": "bar" });
		bar.appendChild(el("label", { "for": "rows" }, "rows per second"));
		ui.rows = el("select", { id: "rows" });
		ROW_CHOICES.forEach(function (r) {
			var o = el("option", { value: r }, String(r) + " (" + (1000 / r) + " ms)");
			if (r === 50)
				o.selected = true;
			ui.rows.appendChild(o);
		});
		bar.appendChild(ui.rows);
		if (procKeys.length > 1 && !diff)
			buildPicker(bar);
		ui.all = el("button", { id: "whole", type: "button" }, "Whole capture");
		bar.appendChild(ui.all);
		ui.selection = el("span", { id: "selection", "class": "info" });
		bar.appendChild(ui.selection);
		root.appendChild(bar);
		var scroll = el("div", { "class": "scroll" });
		ui.heat = el("canvas", { id: "heatmap" });
		scroll.appendChild(ui.heat);
		root.appendChild(scroll);
		var scale = el("div", { id: "scale" });
		ui.scaleMin = el("span", { id: "scale-min" }, "0");
		ui.scaleBar = el("canvas", { id: "scale-bar", width: 200, height: 10 });
		ui.scaleMax = el("span", { id: "scale-max" });
		scale.appendChild(el("span", {}, "scale:"));
		scale.appendChild(ui.scaleMin);
		scale.appendChild(ui.scaleBar);
		scale.appendChild(ui.scaleMax);
		ui.cellInfo = el("span", { id: "cell", "class": "info" });
		scale.appendChild(ui.cellInfo);
		root.appendChild(scale);
	}

	// The processes by weight, the heaviest first, after "all".
	function buildPicker(bar) {
		bar.appendChild(el("label", { "for": "process" }, "process"));
		ui.process = el("select", { id: "process" });
		ui.process.appendChild(el("option", { value: "" }, "all " + procKeys.length +
					  " processes, " + fmtWeight(totalWeight)));
		var order = procKeys.map(function (_, k) {
			return k;
		}).sort(function (a, b) {
			return procW[b] - procW[a] || (procName[a] < procName[b] ? -1 : 1);
		});
		order.forEach(function (k) {
			ui.process.appendChild(el("option", { value: procKeys[k] }, procName[k] + ": " +
						  fmtWeight(procW[k]) + ", " + pct(procW[k], totalWeight)));
		});
		bar.appendChild(ui.process);
	}

	function buildFlame(root) {
		root.appendChild(el("h2", { id: "flame-title" }, "Flame graph"));
		var bar = el("div", { "class": "bar" });
		ui.unzoom = el("button", { id: "unzoom", type: "button", disabled: "" }, "Reset zoom");
		ui.search = el("input", { id: "search", type: "search",
					  placeholder: "search: a regex (Ctrl-F), Enter" });
		ui.unsearch = el("button", { id: "unsearch", type: "button" }, "Reset search");
		ui.matched = el("span", { id: "matched" });
		var ice = el("label", {});
		ui.icicle = el("input", { id: "icicle", type: "checkbox" });
		ice.appendChild(ui.icicle);
		ice.appendChild(doc.createTextNode(" icicle (roots on top)"));
		[ui.unzoom, ui.search, ui.unsearch, ui.matched, ice].forEach(function (e) {
			bar.appendChild(e);
		});
		root.appendChild(bar);
		ui.details = el("div", { id: "details" }, "\u00a0");
		root.appendChild(ui.details);
		ui.flameBox = el("div", { id: "flame-box" });
		ui.flame = el("canvas", { id: "flamegraph" });
		ui.flameBox.appendChild(ui.flame);
		root.appendChild(ui.flameBox);
	}

	function buildTable(root) {
		root.appendChild(el("h2", { id: "table-title" }, "Functions"));
		ui.table = el("table", { id: "functions" });
		var head = el("tr");
		[["name", "function"], ["self", "self"], ["total", "total"]].forEach(function (c) {
			var th = el("th", { "data-key": c[0], "class": c[0] === "name" ? "name" : "" }, c[1]);
			head.appendChild(th);
		});
		var thead = el("thead");
		thead.appendChild(head);
		ui.table.appendChild(thead);
		ui.tbody = el("tbody");
		ui.table.appendChild(ui.tbody);
		var box = el("div", { id: "table-box" });
		box.appendChild(ui.table);
		root.appendChild(box);
		ui.tableNote = el("p", { "class": "note", id: "table-note" });
		root.appendChild(ui.tableNote);
	}

	function buildSandwich(root) {
		ui.sandwich = el("section", { id: "sandwich", hidden: "" });
		ui.sandwichTitle = el("h2", { id: "sandwich-title" });
		ui.sandwich.appendChild(ui.sandwichTitle);
		var bar = el("div", { "class": "bar" });
		ui.unsandwich = el("button", { id: "unsandwich", type: "button" }, "Close");
		bar.appendChild(ui.unsandwich);
		bar.appendChild(el("span", { "class": "info" },
				   "callers above (the function at the bottom), callees below; " +
				   "a click on a frame shows its function's"));
		ui.sandwich.appendChild(bar);
		ui.sandwichDetails = el("div", { id: "sandwich-details", "class": "details" }, "\u00a0");
		ui.sandwich.appendChild(ui.sandwichDetails);
		ui.callers = el("canvas", { id: "callers" });
		ui.callees = el("canvas", { id: "callees" });
		ui.sandwich.appendChild(ui.callers);
		ui.sandwich.appendChild(ui.callees);
		root.appendChild(ui.sandwich);
	}

	function buildMeta(root) {
		var sec = el("section", { id: "meta" });
		sec.appendChild(el("h2", {}, "Capture"));
		var dl = el("dl");
		[["command", meta.cmdline], ["mode", meta.mode], ["event", meta.event],
		 ["frequency", meta.freq ? meta.freq + " Hz" : ""],
		 ["duration", meta.secs > 0 ? meta.secs.toFixed(3) + " s" : ""],
		 ["CPUs", meta.ncpus || ""], ["host", meta.host], ["kernel", meta.kernel],
		 ["processes", String(meta.processes)], ["threads", String(nthreads)],
		 [meta.mode === "trace" ? "calls" : meta.mode === "sample" ? "samples" : "events",
		  nev || !diff ? fmtCount(nev) : ""],
		 ["total", fmtWeight(totalWeight)],
		 ["lost", meta.losses || "nothing"], ["written by", "flamebpf " + meta.flamebpf]]
			.forEach(function (kv) {
				if (kv[1] === "" || kv[1] === undefined)
					return;
				dl.appendChild(el("dt", {}, kv[0]));
				dl.appendChild(el("dd", { "data-key": kv[0] }, String(kv[1])));
			});
		sec.appendChild(dl);
		root.appendChild(sec);
	}

	var totalWeight = 0;
	for (i = 0; i < nstacks; i++)
		totalWeight += stackWeight[i];

	// ---- the heatmap ----

	var heat = { rows: 50, cols: 1, cellW: 10, values: null, max: 0 };
	var sel = null; /* [from, to) in ns since the first event, or null: the whole capture */
	var drag = null;

	function heatWhat() {
		if (meta.mode === "trace")
			return "calls started";
		if (meta.mode === "off-cpu")
			return "time off the CPU";
		if (meta.mode === "wall")
			return "wall time on and off the CPU";
		return "samples";
	}

	// A call or a sample counts where it starts; time (off the CPU, or
	// --wall's samples) is spread over the cells it lasted in.
	function computeHeat() {
		var rows = heat.rows, step = 1e9 / rows;
		/* a sample at exactly N s is in column N; time ending there is not */
		var cols = Math.max(1, spread ? Math.ceil(span / 1e9) : Math.floor(span / 1e9) + 1);
		var v = new Float64Array(cols * rows);
		for (var j = 0; j < nev; j++) {
			var c = Math.min(Math.floor(evFrom[j] / step), v.length - 1);
			if (!stackOn[evStack[j]])
				continue;
			if (!spread) {
				v[c] += meta.mode === "trace" ? 1 : evW[j];
				continue;
			}
			var from = evFrom[j], to = from + evDur[j];
			while (from < to && c < v.length) {
				var end = Math.min(to, (c + 1) * step);
				v[c] += end - from;
				from = end;
				c++;
			}
		}
		var max = 0;
		for (j = 0; j < v.length; j++)
			if (v[j] > max)
				max = v[j];
		heat.cols = cols;
		heat.values = v;
		heat.max = max;
	}

	// White to dark red through orange: darker is more.
	var STOPS = [[255, 255, 255], [253, 208, 162], [241, 105, 19], [127, 39, 4]];

	function heatColor(v) {
		if (!(v > 0))
			return "rgb(255,255,255)";
		var x = Math.min(1, v / (heat.max || 1)) * (STOPS.length - 1);
		var k = Math.min(STOPS.length - 2, Math.floor(x)), f = x - k, a = STOPS[k], b = STOPS[k + 1];
		return "rgb(" + Math.round(a[0] + (b[0] - a[0]) * f) + "," +
			Math.round(a[1] + (b[1] - a[1]) * f) + "," + Math.round(a[2] + (b[2] - a[2]) * f) + ")";
	}

	function fitCanvas(cv, w, h) {
		var r = window.devicePixelRatio || 1;
		cv.width = Math.round(w * r);
		cv.height = Math.round(h * r);
		cv.style.width = w + "px";
		cv.style.height = h + "px";
		var ctx = cv.getContext("2d");
		ctx.setTransform(r, 0, 0, r, 0, 0);
		return ctx;
	}

	function pageWidth() {
		return Math.max(400, doc.documentElement.clientWidth - 40);
	}

	function drawHeat() {
		var rows = heat.rows, cols = heat.cols;
		heat.cellW = Math.max(3, Math.min(40, Math.floor((pageWidth() - HEAT_LEFT) / cols)));
		heat.cellH = Math.max(2, Math.round(HEAT_CELL_H * 50 / rows));
		var w = HEAT_LEFT + cols * heat.cellW + 4, h = HEAT_TOP + rows * heat.cellH + HEAT_BOTTOM;
		var ctx = fitCanvas(ui.heat, w, h);
		ctx.fillStyle = "rgb(250,250,248)";
		ctx.fillRect(0, 0, w, h);
		for (var c = 0; c < cols; c++)
			for (var r = 0; r < rows; r++) {
				ctx.fillStyle = heatColor(heat.values[c * rows + r]);
				ctx.fillRect(HEAT_LEFT + c * heat.cellW, HEAT_TOP + r * heat.cellH,
					     heat.cellW, heat.cellH);
			}
		drawAxes(ctx);
		drawSelection(ctx);
		ui.heat.dataset.rows = rows;
		ui.heat.dataset.cols = cols;
		ui.heat.dataset.cellW = heat.cellW;
		ui.heat.dataset.cellH = heat.cellH;
		ui.heat.dataset.left = HEAT_LEFT;
		ui.heat.dataset.top = HEAT_TOP;
		drawScale();
	}

	function drawAxes(ctx) {
		ctx.fillStyle = "rgb(60,60,60)";
		ctx.font = "10px Verdana, sans-serif";
		ctx.textAlign = "right";
		for (var q = 0; q <= 4; q++) {
			var y = HEAT_TOP + q / 4 * heat.rows * heat.cellH;
			ctx.fillText((q / 4).toFixed(2) + " s", HEAT_LEFT - 4, Math.min(y + 4, HEAT_TOP + heat.rows * heat.cellH));
		}
		ctx.textAlign = "center";
		var every = Math.max(1, Math.ceil(30 / heat.cellW));
		for (var c = 0; c < heat.cols; c += every)
			ctx.fillText(String(c), HEAT_LEFT + (c + 0.5) * heat.cellW,
				     HEAT_TOP + heat.rows * heat.cellH + 13);
	}

	function cellOf(a) {
		return [Math.floor(a / heat.rows), a % heat.rows];
	}

	// The selected cells, outlined: those whose time lies in the selection.
	function drawSelection(ctx) {
		var range = drag ? cellRange(drag.a, drag.b) : sel;
		if (!range)
			return;
		var step = 1e9 / heat.rows;
		var a = Math.floor(range[0] / step), b = Math.ceil(range[1] / step) - 1;
		ctx.fillStyle = "rgba(40,90,200,0.35)";
		for (var k = a; k <= b && k < heat.cols * heat.rows; k++) {
			var cr = cellOf(k);
			ctx.fillRect(HEAT_LEFT + cr[0] * heat.cellW, HEAT_TOP + cr[1] * heat.cellH,
				     heat.cellW, heat.cellH);
		}
	}

	function drawScale() {
		var ctx = ui.scaleBar.getContext("2d");
		for (var x = 0; x < 200; x++) {
			ctx.fillStyle = heatColor(heat.max * (x + 0.5) / 200);
			ctx.fillRect(x, 0, 1, 10);
		}
		ui.scaleMax.textContent = heatValue(heat.max) + " per cell";
	}

	function heatValue(v) {
		return spread ? fmtNs(v) : fmtCount(v) + (meta.mode === "trace" ? " calls" : " samples");
	}

	function cellAt(ev) {
		var b = ui.heat.getBoundingClientRect();
		var c = Math.floor((ev.clientX - b.left - HEAT_LEFT) / heat.cellW);
		var r = Math.floor((ev.clientY - b.top - HEAT_TOP) / heat.cellH);
		if (c < 0 || r < 0 || c >= heat.cols || r >= heat.rows)
			return -1;
		return c * heat.rows + r;
	}

	function cellRange(a, b) {
		var step = 1e9 / heat.rows;
		return [Math.min(a, b) * step, (Math.max(a, b) + 1) * step];
	}

	function heatEvents() {
		ui.heat.addEventListener("mousedown", function (ev) {
			var k = cellAt(ev);
			if (k < 0)
				return;
			drag = { a: k, b: k };
			ev.preventDefault();
			drawHeat();
		});
		ui.heat.addEventListener("mousemove", function (ev) {
			var k = cellAt(ev);
			showCell(k);
			if (drag && k >= 0 && k !== drag.b) {
				drag.b = k;
				drawHeat();
			}
		});
		ui.heat.addEventListener("mouseleave", function () {
			showCell(-1);
		});
		window.addEventListener("mouseup", function () {
			if (!drag)
				return;
			var range = cellRange(drag.a, drag.b);
			drag = null;
			select(range);
		});
		ui.all.addEventListener("click", function () {
			select(null);
		});
		if (ui.process)
			ui.process.addEventListener("change", function () {
				setProcess(ui.process.value);
				saveView();
			});
		ui.rows.addEventListener("change", function () {
			setRows(+ui.rows.value);
			saveView();
		});
	}

	// The process of that key ("" or an unknown one: all of them); the
	// zoomed frame may be another's, so the zoom is reset.
	function setProcess(key) {
		var k = procKeys.indexOf(key);
		chooseProcess(k);
		if (ui.process)
			ui.process.value = k < 0 ? "" : key;
		zoomed = N;
		computeHeat();
		drawHeat();
		update();
	}

	function setRows(rows) {
		heat.rows = rows;
		ui.rows.value = String(rows);
		computeHeat();
		drawHeat();
	}

	function showCell(k) {
		if (k < 0) {
			ui.cellInfo.textContent = "";
			return;
		}
		var r = cellRange(k, k);
		ui.cellInfo.textContent = (r[0] / 1e9).toFixed(3) + "-" + (r[1] / 1e9).toFixed(3) +
			" s: " + heatValue(heat.values[k]);
	}

	function select(range) {
		sel = range;
		zoomed = N;
		drawHeat();
		update();
		saveView();
	}

	// ---- the weights of the selection ----

	var selfW = new Float64Array(N + 1), totW = new Float64Array(N + 1);

	// Samples and calls count when they start in the range; time is
	// clipped to it.
	function weigh() {
		selfW.fill(0);
		if (!sel) {
			for (var s = 0; s < nstacks; s++)
				if (stackOn[s])
					selfW[stackNode[s]] += stackWeight[s];
		} else {
			var from = spread ? sel[0] - maxDur : sel[0];
			var to = spread ? sel[1] + maxDur : sel[1];
			for (var j = lowerBound(from); j < nev && evTs[j] < to; j++) {
				var w = evW[j];
				if (spread)
					w = Math.max(0, Math.min(sel[1], evFrom[j] + evDur[j]) - Math.max(sel[0], evFrom[j]));
				else if (evTs[j] < sel[0])
					continue;
				if (stackOn[evStack[j]])
					selfW[stackNode[evStack[j]]] += w;
			}
		}
		totW.set(selfW);
		for (var k = N - 1; k >= 0; k--)
			totW[parent[k]] += totW[k];
	}

	function lowerBound(t) {
		var lo = 0, hi = nev;
		while (lo < hi) {
			var mid = (lo + hi) >> 1;
			if (evTs[mid] < t)
				lo = mid + 1;
			else
				hi = mid;
		}
		return lo;
	}

	// ---- the flame graph ----

	var zoomed = N, searchRe = null, hover = -1;
	var drawn = []; /* {node, x, w, depth} of the frames drawn, in tree order */
	var flameW = 0, flameH = 0;

	function nameOf(n) {
		return n === N ? "all" : fname[nfunc[n]];
	}

	function colorOf(n) {
		if (n === N)
			return "rgb(200,200,205)";
		return diff ? rgbString(diff.rgb[n]) : fcolor[nfunc[n]];
	}

	// The frames to draw: the zoomed one's ancestors at full width, then
	// it and its callees, depth first, each sibling after the one before.
	function layout() {
		drawn = [];
		var z = zoomed, total = totW[z] || 1, scale = flameW / total;
		for (var a = z; a !== N; ) {
			a = parent[a];
			drawn.push({ node: a, x: 0, w: flameW, depth: depth[a], parent: true });
		}
		drawn.reverse();
		var stack = [z], xs = [0];
		while (stack.length) {
			var n = stack.pop(), x = xs.pop(), w = totW[n] * scale;
			if (w < MIN_PX)
				continue;
			drawn.push({ node: n, x: x, w: w, depth: depth[n], parent: false });
			var kids = [], cx = x;
			for (var c = childStart[n]; c < childStart[n + 1]; c++) {
				var k = childList[c];
				if (totW[k] > 0) {
					kids.push(k, cx);
					cx += totW[k] * scale;
				}
			}
			for (var q = kids.length - 2; q >= 0; q -= 2) {
				stack.push(kids[q]);
				xs.push(kids[q + 1]);
			}
		}
		var deepest = 0;
		for (var d = 0; d < drawn.length; d++)
			deepest = Math.max(deepest, drawn[d].depth);
		return deepest;
	}

	function frameY(d) {
		return ui.icicle.checked ? d * FRAME_H : flameH - (d + 1) * FRAME_H;
	}

	// Lays the frames out and paints them; the box they scroll in shows
	// the roots (its bottom, unless roots are on top).
	function drawFlame() {
		flameW = pageWidth();
		var deepest = layout();
		flameH = (deepest + 1) * FRAME_H + 2;
		fitCanvas(ui.flame, flameW, flameH);
		repaint();
		ui.flameBox.scrollTop = ui.icicle.checked ? 0 : ui.flameBox.scrollHeight;
	}

	// The same frames again (a hover, a search).
	function repaint() {
		var ctx = ui.flame.getContext("2d");
		ctx.clearRect(0, 0, flameW, flameH);
		ctx.font = FONT;
		ctx.textBaseline = "middle";
		for (var k = 0; k < drawn.length; k++)
			paintFrame(ctx, drawn[k]);
	}

	function matches(n) {
		return searchRe !== null && n !== N && searchRe.test(nameOf(n));
	}

	function fillOf(f) {
		return matches(f.node) ? HIGHLIGHT : colorOf(f.node);
	}

	function paintFrame(ctx, f) {
		var y = frameY(f.depth);
		ctx.globalAlpha = f.parent ? 0.5 : 1;
		ctx.fillStyle = fillOf(f);
		ctx.fillRect(f.x, y, Math.max(f.w - 0.5, 0.3), FRAME_H - 1);
		if (f.node === hover) {
			ctx.strokeStyle = "black";
			ctx.lineWidth = 0.7;
			ctx.strokeRect(f.x + 0.35, y + 0.35, Math.max(f.w - 1.2, 0.3), FRAME_H - 1.7);
		}
		var fit = Math.floor((f.w - 6) / CHAR_W);
		if (fit >= 3) {
			var s = nameOf(f.node);
			if (s.length > fit)
				s = s.slice(0, fit - 2) + "..";
			ctx.fillStyle = "black";
			ctx.fillText(s, f.x + 3, y + FRAME_H / 2);
		}
		ctx.globalAlpha = 1;
	}

	function frameAt(ev) {
		var b = ui.flame.getBoundingClientRect(), x = ev.clientX - b.left, y = ev.clientY - b.top;
		for (var k = drawn.length - 1; k >= 0; k--) {
			var f = drawn[k], fy = frameY(f.depth);
			if (y >= fy && y < fy + FRAME_H && x >= f.x && x < f.x + f.w)
				return f;
		}
		return null;
	}

	function describe(n) {
		var all = totW[N], s = nameOf(n);
		if (n !== N && fmodule[nfunc[n]] && fkind[nfunc[n]] === KIND_USER)
			s += " [" + fmodule[nfunc[n]] + "]";
		s += " (" + fmtWeight(totW[n]) + ", " + pct(totW[n], all);
		if (n !== N && fkind[nfunc[n]] !== KIND_ROOT && selfW[n] > 0)
			s += "; self " + fmtWeight(selfW[n]);
		return s + ")" + (diff ? diffOf(n) : "");
	}

	// " base 1,234 samples 12.30%, +7.80 points", as the diff SVG says it.
	function diffOf(n) {
		var bw = n === N ? diff.totals[0] : diff.basew[n], now = totW[n] / (totW[N] || 1);
		if (bw < 0)
			return " base: none";
		var then = bw / (diff.totals[0] || 1), c = 100 * (now - then);
		return " base " + fmtWeight(bw) + " " + (100 * then).toFixed(2) + "%, " +
			(c >= 0 ? "+" : "") + c.toFixed(2) + " points";
	}

	function flameEvents() {
		ui.flame.addEventListener("mousemove", function (ev) {
			var f = frameAt(ev), n = f ? f.node : -1;
			if (n === hover)
				return;
			hover = n;
			ui.details.textContent = f ? describe(n) : "\u00a0";
			repaint();
		});
		ui.flame.addEventListener("mouseleave", function () {
			hover = -1;
			ui.details.textContent = "\u00a0";
			repaint();
		});
		ui.flame.addEventListener("click", function (ev) {
			var f = frameAt(ev);
			if (f && ev.shiftKey && f.node !== N)
				showSandwich(nfunc[f.node]);
			else if (f)
				zoom(f.node);
		});
		ui.unzoom.addEventListener("click", function () {
			zoom(N);
		});
		ui.icicle.addEventListener("change", function () {
			drawFlame();
			saveView();
		});
		ui.search.addEventListener("keydown", function (ev) {
			if (ev.key === "Enter")
				search(ui.search.value);
			else if (ev.key === "Escape")
				search("");
		});
		ui.unsearch.addEventListener("click", function () {
			search("");
		});
		doc.addEventListener("keydown", function (ev) {
			if ((ev.ctrlKey || ev.metaKey) && ev.key === "f") {
				ev.preventDefault();
				ui.search.focus();
				ui.search.select();
			} else if (ev.key === "Escape" && doc.activeElement !== ui.search) {
				search("");
			}
		});
		window.addEventListener("resize", function () {
			drawHeat();
			drawFlame();
			drawSandwich();
		});
	}

	function zoom(n) {
		zoomed = n;
		if (n === N)
			ui.unzoom.setAttribute("disabled", "");
		else
			ui.unzoom.removeAttribute("disabled");
		drawFlame();
		showMatched();
		saveView();
	}

	function search(term) {
		ui.search.value = term;
		ui.search.classList.remove("bad");
		searchRe = null;
		if (term) {
			try {
				searchRe = new RegExp(term);
			} catch (e) {
				ui.search.classList.add("bad");
			}
		}
		repaint();
		showMatched();
		drawSandwich();
		drawTimeline();
		saveView();
	}

	// The weight under matching frames, a match inside another counted
	// once: over the whole selection, and within the zoomed frame.
	function matchedWeight(top) {
		var sum = 0, stack = [top];
		while (stack.length) {
			var n = stack.pop();
			if (matches(n)) {
				sum += totW[n];
				continue;
			}
			for (var c = childStart[n]; c < childStart[n + 1]; c++)
				stack.push(childList[c]);
		}
		return sum;
	}

	function ancestorMatches(n) {
		for (var a = n; a !== N; a = parent[a])
			if (matches(a))
				return true;
		return false;
	}

	function showMatched() {
		if (!searchRe) {
			ui.matched.textContent = "";
			return;
		}
		var s = "Matched: " + (100 * matchedWeight(N) / (totW[N] || 1)).toFixed(1) + "%";
		if (zoomed !== N) {
			var inZoom = ancestorMatches(zoomed) ? totW[zoomed] : matchedWeight(zoomed);
			s += " (" + (100 * inZoom / (totW[zoomed] || 1)).toFixed(1) + "% of the zoomed frame)";
		}
		ui.matched.textContent = s;
	}

	// ---- the table of functions ----

	var sortKey = "self", sortUp = false, rowsData = [];

	// Self: the weight of the stacks that end in the function; total: of
	// those that hold it, counted once however deep the recursion.
	function tabulate() {
		var self = new Float64Array(nfuncs), total = new Float64Array(nfuncs);
		var onPath = new Int32Array(nfuncs), stack = [N], leaving = [false];
		while (stack.length) {
			var n = stack.pop(), out = leaving.pop();
			var f = n === N ? -1 : nfunc[n];
			if (out) {
				onPath[f]--;
				continue;
			}
			if (totW[n] <= 0)
				continue;
			if (f >= 0) {
				self[f] += selfW[n];
				if (!onPath[f])
					total[f] += totW[n];
				onPath[f]++;
				stack.push(n);
				leaving.push(true);
			}
			for (var c = childStart[n]; c < childStart[n + 1]; c++) {
				stack.push(childList[c]);
				leaving.push(false);
			}
		}
		rowsData = [];
		for (var k = 0; k < nfuncs; k++)
			if (fkind[k] !== KIND_ROOT && total[k] > 0)
				rowsData.push({ f: k, self: self[k], total: total[k] });
	}

	function sortRows() {
		var key = sortKey, dir = sortUp ? 1 : -1;
		rowsData.sort(function (a, b) {
			if (key === "name") {
				var x = fname[a.f], y = fname[b.f];
				return (x < y ? -1 : x > y ? 1 : 0) * dir;
			}
			return (a[key] - b[key]) * dir || (fname[a.f] < fname[b.f] ? -1 : 1);
		});
	}

	function drawTable() {
		sortRows();
		var all = totW[N], frag = doc.createDocumentFragment();
		var shown = Math.min(rowsData.length, TABLE_ROWS);
		for (var k = 0; k < shown; k++) {
			var r = rowsData[k], tr = el("tr", { "data-func": r.f });
			var name = el("td", { "class": "name", title: fname[r.f] });
			var sw = el("span", { "class": "swatch" });
			sw.style.background = fcolor[r.f];
			name.appendChild(sw);
			name.appendChild(doc.createTextNode(fname[r.f]));
			tr.appendChild(name);
			tr.appendChild(el("td", { "data-value": r.self }, fmtWeight(r.self) + "  " + pct(r.self, all)));
			tr.appendChild(el("td", { "data-value": r.total }, fmtWeight(r.total) + "  " + pct(r.total, all)));
			frag.appendChild(tr);
		}
		ui.tbody.textContent = "";
		ui.tbody.appendChild(frag);
		ui.tableNote.textContent = rowsData.length > shown ?
			"the first " + shown + " of " + rowsData.length + " functions" : rowsData.length + " functions";
		var ths = ui.table.querySelectorAll("th");
		for (k = 0; k < ths.length; k++) {
			var on = ths[k].getAttribute("data-key") === sortKey;
			ths[k].classList.toggle("sorted", on);
			ths[k].classList.toggle("up", on && sortUp);
		}
	}

	function tableEvents() {
		ui.table.querySelector("thead").addEventListener("click", function (ev) {
			var key = ev.target.getAttribute("data-key");
			if (!key)
				return;
			if (key === sortKey)
				sortUp = !sortUp;
			else {
				sortKey = key;
				sortUp = key === "name";
			}
			drawTable();
		});
		ui.tbody.addEventListener("click", function (ev) {
			var tr = ev.target.closest("tr");
			if (!tr)
				return;
			var f = +tr.getAttribute("data-func");
			search("^" + fname[f].replace(/[.*+?^${}()|[\]\\]/g, "\\$&") + "$");
			showSandwich(f);
			ui.sandwich.scrollIntoView({ block: "nearest" });
		});
	}

	// ---- the sandwich of a function ----

	// Two trees rooted at the function: its callers (the paths to its
	// calls, merged from the function up to the roots) and its callees
	// (what it called, merged). A recursive function counts at its
	// outermost call only, as the table's total does. Tree nodes are
	// { f, w, kids: { func: node } }.
	var sandwichFunc = -1, sandwichDrawn = { callers: [], callees: [] };

	function treeKid(t, f) {
		var k = t.kids[f];
		if (!k)
			k = t.kids[f] = { f: f, w: 0, kids: {} };
		return k;
	}

	function mergeCallees(into, n) {
		var stack = [into, n];
		while (stack.length) {
			var m = stack.pop(), t = stack.pop();
			for (var c = childStart[m]; c < childStart[m + 1]; c++) {
				var k = childList[c];
				if (totW[k] <= 0)
					continue;
				var tk = treeKid(t, nfunc[k]);
				tk.w += totW[k];
				stack.push(tk, k);
			}
		}
	}

	function sandwichTrees(f) {
		var callers = { f: f, w: 0, kids: {} }, callees = { f: f, w: 0, kids: {} };
		var inside = new Uint8Array(N + 1); /* the node or a caller of it is f */
		for (var n = 0; n < N; n++) {
			inside[n] = inside[parent[n]] || nfunc[n] === f;
			if (nfunc[n] !== f || inside[parent[n]] || totW[n] <= 0)
				continue;
			callers.w += totW[n];
			callees.w += totW[n];
			for (var a = parent[n], t = callers; a !== N; a = parent[a]) {
				t = treeKid(t, nfunc[a]);
				t.w += totW[n];
			}
			mergeCallees(callees, n);
		}
		return { callers: callers, callees: callees };
	}

	function kidsByName(t) {
		return Object.keys(t.kids).map(function (k) {
			return t.kids[k];
		}).sort(function (a, b) {
			return fname[a.f] < fname[b.f] ? -1 : fname[a.f] > fname[b.f] ? 1 : fkind[a.f] - fkind[b.f];
		});
	}

	// Frames of a tree as the flame graph lays them out: {t, x, w, depth}.
	function layoutTree(root, width) {
		var out = [], stack = [root, 0, 0], scale = width / (root.w || 1);
		while (stack.length) {
			var d = stack.pop(), x = stack.pop(), t = stack.pop(), w = t.w * scale;
			if (w < MIN_PX)
				continue;
			out.push({ t: t, x: x, w: w, depth: d });
			var kids = kidsByName(t), cx = x, put = [];
			kids.forEach(function (k) {
				put.push([k, cx, d + 1]);
				cx += k.w * scale;
			});
			for (var q = put.length - 1; q >= 0; q--)
				stack.push(put[q][0], put[q][1], put[q][2]);
		}
		return out;
	}

	// Callers grow up from the function at the bottom; callees down.
	function drawTree(cv, root, up) {
		var frames = layoutTree(root, flameW), deepest = 0;
		frames.forEach(function (f) {
			deepest = Math.max(deepest, f.depth);
		});
		var h = (deepest + 1) * FRAME_H + 2, ctx = fitCanvas(cv, flameW, h);
		ctx.font = FONT;
		ctx.textBaseline = "middle";
		frames.forEach(function (f) {
			f.y = up ? h - 2 - (f.depth + 1) * FRAME_H : f.depth * FRAME_H;
			paintTreeFrame(ctx, f);
		});
		return frames;
	}

	function paintTreeFrame(ctx, f) {
		ctx.fillStyle = matchesFunc(f.t.f) ? HIGHLIGHT : fcolor[f.t.f];
		ctx.fillRect(f.x, f.y, Math.max(f.w - 0.5, 0.3), FRAME_H - 1);
		var fit = Math.floor((f.w - 6) / CHAR_W);
		if (fit >= 3) {
			var s = fname[f.t.f];
			if (s.length > fit)
				s = s.slice(0, fit - 2) + "..";
			ctx.fillStyle = "black";
			ctx.fillText(s, f.x + 3, f.y + FRAME_H / 2);
		}
	}

	function matchesFunc(f) {
		return searchRe !== null && searchRe.test(fname[f]);
	}

	function showSandwich(f) {
		sandwichFunc = f;
		drawSandwich();
		saveView();
	}

	function drawSandwich() {
		if (sandwichFunc < 0) {
			ui.sandwich.setAttribute("hidden", "");
			return;
		}
		ui.sandwich.removeAttribute("hidden");
		var trees = sandwichTrees(sandwichFunc), w = trees.callers.w;
		ui.sandwichTitle.textContent = "Sandwich: " + fname[sandwichFunc] + " (" + fmtWeight(w) +
			", " + pct(w, totW[N]) + " of the " + (sel ? "selection" : "whole capture") + ")";
		sandwichDrawn.callers = drawTree(ui.callers, trees.callers, true);
		sandwichDrawn.callees = drawTree(ui.callees, trees.callees, false);
		sandwichDrawn.trees = trees;
	}

	function treeFrameAt(cv, frames, ev) {
		var b = cv.getBoundingClientRect(), x = ev.clientX - b.left, y = ev.clientY - b.top;
		for (var k = 0; k < frames.length; k++) {
			var f = frames[k];
			if (y >= f.y && y < f.y + FRAME_H && x >= f.x && x < f.x + f.w)
				return f;
		}
		return null;
	}

	function describeTree(f) {
		return fname[f.t.f] + " (" + fmtWeight(f.t.w) + ", " + pct(f.t.w, totW[N]) + ")";
	}

	function sandwichEvents() {
		[["callers", ui.callers], ["callees", ui.callees]].forEach(function (pair) {
			var cv = pair[1];
			cv.addEventListener("mousemove", function (ev) {
				var f = treeFrameAt(cv, sandwichDrawn[pair[0]], ev);
				ui.sandwichDetails.textContent = f ? describeTree(f) : "\u00a0";
			});
			cv.addEventListener("click", function (ev) {
				var f = treeFrameAt(cv, sandwichDrawn[pair[0]], ev);
				if (f && f.t.f !== sandwichFunc)
					showSandwich(f.t.f);
			});
		});
		ui.unsandwich.addEventListener("click", function () {
			showSandwich(-1);
		});
	}

	// ---- everything below the heatmap follows the selection ----

	function update() {
		weigh();
		var total = totW[N];
		if (sel)
			ui.selection.textContent = "selected: " + (sel[0] / 1e9).toFixed(3) + "-" +
				(sel[1] / 1e9).toFixed(3) + " s, " + fmtWeight(total);
		else
			ui.selection.textContent = "whole capture, " + fmtWeight(total) +
				" (click or drag to select a range)";
		doc.getElementById("flame-title").textContent = diff ?
			"Flame graph of the new profile, coloured by the change" :
			"Flame graph of the " + (sel ? "selection" : "whole capture");
		ui.details.textContent = total > 0 ? "\u00a0" : "nothing in the selected range";
		zoom(zoomed);
		tabulate();
		drawTable();
		drawSandwich();
		if (ui.timeline)
			resetTimeline();
	}

	// ---- the view in the URL ----

	// "#sel=FROM-TO&rows=R&zoom=ROOT;F;G&search=RE&icicle=1&fn=F&proc=PID
	// &thread=TID&tl=FROM-TO": the
	// selection in seconds since the first event, the zoomed frame by its
	// path of names, the sandwich's function, the process by its pid (by
	// name where there were none), the timeline's thread by its tid and its
	// window. replaceState: a view is no new history entry, and no request.
	var viewReady = false;

	function nodePath(n) {
		var names = [];
		for (; n !== N; n = parent[n])
			names.push(nameOf(n));
		return names.reverse().join(";");
	}

	function nodeAt(path) {
		var n = N, names = path.split(";");
		for (var k = 0; k < names.length && n >= 0; k++) {
			var next = -1;
			for (var c = childStart[n]; c < childStart[n + 1] && next < 0; c++)
				if (nameOf(childList[c]) === names[k])
					next = childList[c];
			n = next;
		}
		return n < 0 ? N : n;
	}

	function saveView() {
		if (!viewReady)
			return;
		var q = [];
		if (sel)
			q.push("sel=" + sel[0] / 1e9 + "-" + sel[1] / 1e9);
		if (heat.rows !== 50)
			q.push("rows=" + heat.rows);
		if (zoomed !== N)
			q.push("zoom=" + encodeURIComponent(nodePath(zoomed)));
		if (ui.search.value)
			q.push("search=" + encodeURIComponent(ui.search.value));
		if (ui.icicle.checked)
			q.push("icicle=1");
		if (sandwichFunc >= 0)
			q.push("fn=" + encodeURIComponent(fname[sandwichFunc]));
		if (procChosen >= 0)
			q.push("proc=" + encodeURIComponent(procKeys[procChosen]));
		if (ui.thread && ui.thread.selectedIndex > 0)
			q.push("thread=" + D.threads[4 * tl.thread + 1]);
		if (ui.timeline && tl.zoomed)
			q.push("tl=" + tl.from / 1e9 + "-" + tl.to / 1e9);
		var hash = q.length ? "#" + q.join("&") : "";
		if (hash !== location.hash)
			history.replaceState(null, "", hash || location.pathname + location.search);
	}

	function readView() {
		var v = {};
		location.hash.replace(/^#/, "").split("&").forEach(function (kv) {
			var eq = kv.indexOf("=");
			if (eq > 0) {
				try {
					v[kv.slice(0, eq)] = decodeURIComponent(kv.slice(eq + 1));
				} catch (e) {
					/* a mangled value: that part of the view is not restored */
				}
			}
		});
		return v;
	}

	// A function of that name, -1 if none; a root only where no function is.
	function funcNamed(name) {
		var found = -1;
		for (var f = 0; f < nfuncs; f++)
			if (fname[f] === name && (found < 0 || fkind[found] === KIND_ROOT))
				found = f;
		return found;
	}

	function parseSel(s) {
		var m = /^(\d+(?:\.\d+)?)-(\d+(?:\.\d+)?)$/.exec(s || "");
		if (!m || +m[2] <= +m[1])
			return null;
		return [Math.round(m[1] * 1e9), Math.round(m[2] * 1e9)];
	}

	// The thread by its tid, the window in seconds, as saveView writes them.
	function loadTimeline(v) {
		if (!ui.timeline)
			return;
		var opts = ui.thread.options, win = parseSel(v.tl);
		for (var k = 0; k < opts.length; k++)
			if (String(D.threads[4 * +opts[k].value + 1]) === v.thread && +opts[k].value !== tl.thread) {
				ui.thread.selectedIndex = k;
				setThread(+opts[k].value);
			}
		if (win) {
			tl.from = win[0];
			tl.to = win[1];
			tl.zoomed = true;
			drawTimeline();
		}
	}

	// Applies the hash's view; what it lacks or gets wrong is the default.
	function loadView() {
		var v = readView(), rows = +v.rows;
		viewReady = false;
		var k = procKeys.indexOf(v.proc || "");
		chooseProcess(k);
		if (ui.process)
			ui.process.value = k < 0 ? "" : v.proc;
		setRows(ROW_CHOICES.indexOf(rows) >= 0 ? rows : 50);
		ui.icicle.checked = v.icicle === "1";
		sel = parseSel(v.sel);
		zoomed = v.zoom ? nodeAt(v.zoom) : N;
		sandwichFunc = v.fn ? funcNamed(v.fn) : -1;
		drawHeat();
		update();
		search(v.search || "");
		loadTimeline(v);
		viewReady = true;
	}

	function treeFrame(f) {
		return { name: fname[f.t.f], x: f.x, y: f.y, w: f.w, depth: f.depth };
	}

	function treeList(root) {
		var out = [], stack = [root, fname[root.f]];
		while (stack.length) {
			var p = stack.pop(), t = stack.pop();
			out.push({ path: p, w: t.w });
			kidsByName(t).forEach(function (k) {
				stack.push(k, p + ";" + fname[k.f]);
			});
		}
		return out;
	}

	// ---- the timeline of a thread (flame chart) ----

	// Rectangles {node, from, to, depth}, by start: a traced call from its
	// start to its end at its depth; samples (and blocks off the CPU) of
	// the same call path at a depth, one after the other, merged into one,
	// a sample lasting until the thread's next one, at most a period.
	var TL_H = 16, tl = { thread: -1, rects: [], from: 0, to: 1, drawn: [] };
	var samplePeriod = meta.freq > 0 ? 1e9 / meta.freq : 0;

	function threadWeights() {
		var w = new Float64Array(nthreads);
		for (var j = 0; j < nstacks; j++)
			w[D.stacks[4 * j + 1]] += stackWeight[j];
		return w;
	}

	function buildTimeline(root) {
		root.appendChild(el("h2", { id: "timeline-title" }, "Timeline of a thread"));
		var bar = el("div", { "class": "bar" });
		bar.appendChild(el("label", { "for": "thread" }, "thread"));
		ui.thread = el("select", { id: "thread" });
		var w = threadWeights(), order = [];
		for (var t = 0; t < nthreads; t++)
			if (w[t] > 0)
				order.push(t);
		order.sort(function (a, b) {
			return w[b] - w[a] || a - b;
		});
		order.forEach(function (t) {
			ui.thread.appendChild(el("option", { value: t }, threadName(t) + ": " + fmtWeight(w[t])));
		});
		bar.appendChild(ui.thread);
		ui.tlReset = el("button", { id: "timeline-reset", type: "button" }, "Reset zoom");
		bar.appendChild(ui.tlReset);
		bar.appendChild(el("span", { "class": "info" }, "the wheel zooms, a drag pans"));
		root.appendChild(bar);
		ui.tlDetails = el("div", { id: "timeline-details", "class": "details" }, "\u00a0");
		root.appendChild(ui.tlDetails);
		ui.tlBox = el("div", { id: "timeline-box" });
		ui.timeline = el("canvas", { id: "timeline" });
		ui.tlBox.appendChild(ui.timeline);
		root.appendChild(ui.tlBox);
	}

	function threadName(t) {
		var pid = D.threads[4 * t], comm = strings[D.threads[4 * t + 2]];
		var tcomm = strings[D.threads[4 * t + 3]];
		return (tcomm && tcomm !== comm ? comm + "/" + tcomm : comm) + " " +
			(pid >= 0 ? pid + "/" : "") + D.threads[4 * t + 1];
	}

	function threadEvents(t) {
		var out = [];
		for (var j = 0; j < nev; j++)
			if (D.stacks[4 * evStack[j] + 1] === t)
				out.push(j);
		return out;
	}

	function callRects(evs) {
		return evs.map(function (j) {
			var n = stackNode[evStack[j]];
			return { node: n, from: evTs[j], to: evTs[j] + evDur[j], depth: depth[n] - 2, ev: j };
		});
	}

	// The path of node n below its root: [depth 0 node, depth 1 node, ...].
	function pathOf(n) {
		var p = [];
		for (; parent[n] !== N; n = parent[n])
			p.push(n);
		return p.reverse();
	}

	// A sample's period: the capture's, else the thread's median gap.
	function periodOf(evs) {
		if (samplePeriod > 0 || evs.length < 2)
			return samplePeriod || 1e6;
		var gaps = [];
		for (var k = 1; k < evs.length && gaps.length < 10000; k++)
			gaps.push(evTs[evs[k]] - evTs[evs[k - 1]]);
		gaps.sort(function (x, y) {
			return x - y;
		});
		return gaps[gaps.length >> 1] || 1e6;
	}

	// As the Chrome JSON output draws samples: each lasts its period (never
	// past the next one), and a frame goes on through up to two idle
	// periods; a block off the CPU lasts its time, and only a block right
	// after it goes on with its frames. Where events weigh their time
	// (spread), each lasts exactly that: one that would begin before the
	// one before it ends (a --wall sample taken less than a period after
	// its thread came back) begins where that one ends.
	function sampleRects(evs) {
		var rects = [], open = [], period = periodOf(evs), cursor = 0;
		var gap = meta.mode === "off-cpu" ? 1 : 2 * period;
		evs.forEach(function (j, k) {
			var from = spread ? Math.max(evFrom[j], cursor) : evTs[j];
			var end = from + (spread ? evDur[j] : period), path = pathOf(stackNode[evStack[j]]);
			if (!spread && k + 1 < evs.length && evTs[evs[k + 1]] < end)
				end = evTs[evs[k + 1]];
			end = Math.max(end, from + 1);
			cursor = end;
			for (var d = 0; d < Math.max(path.length, open.length); d++) {
				var o = open[d];
				if (o && d < path.length && o.node === path[d] && from <= o.to + gap) {
					o.to = Math.max(o.to, end);
					continue;
				}
				for (var e = d; e < open.length; e++)
					rects.push(open[e]);
				open.length = d;
				for (; d < path.length; d++)
					open.push({ node: path[d], from: from, to: end, depth: d });
				break;
			}
			// a probe's hits: the leaf keeps its first hit and counts them
			var leaf = open[path.length - 1];
			if (leaf && leaf.ev === undefined)
				leaf.ev = j;
			if (leaf)
				leaf.hits = (leaf.hits || 0) + 1;
		});
		return rects.concat(open).sort(function (a, b) {
			return a.from - b.from || a.depth - b.depth;
		});
	}

	// A traced call's arguments and return as the Chrome JSON output
	// names them (events.args: arg0, arg1, arg2, ret; ret null when no
	// return came); a probe's hit's arguments (events.hits: arg0, arg1,
	// arg2), the first hit's where the rectangle merges several; or ""
	// where the page holds none.
	function callArgs(r) {
		var a;
		if (r.ev === undefined)
			return "";
		if (E.args) {
			a = E.args.slice(4 * r.ev, 4 * r.ev + 4);
			return " arg0=" + a[0] + " arg1=" + a[1] + " arg2=" + a[2] +
				(a[3] === null ? " unfinished" : " ret=" + a[3]);
		}
		if (!E.hits)
			return "";
		// a string the program passed is {s: "..."}: shown quoted
		a = E.hits.slice(3 * r.ev, 3 * r.ev + 3).map(function (v) {
			return v !== null && typeof v === "object" ? JSON.stringify(v.s) : v;
		});
		return " arg0=" + a[0] + " arg1=" + a[1] + " arg2=" + a[2] +
			(r.hits > 1 ? " (the first of " + r.hits + " hits)" : "");
	}

	function setThread(t) {
		tl.thread = t;
		var evs = threadEvents(t);
		tl.rects = meta.mode === "trace" ? callRects(evs) : sampleRects(evs);
		resetTimeline();
	}

	// The selection's time, or all of it.
	function resetTimeline() {
		tl.from = sel ? sel[0] : 0;
		tl.to = sel ? sel[1] : Math.max(span, 1);
		tl.zoomed = false;
		drawTimeline();
	}

	// The window in the URL once the wheel or a drag rests: browsers
	// refuse a flood of history updates.
	var tlSave = 0;

	function saveTimeline() {
		tl.zoomed = true;
		clearTimeout(tlSave);
		tlSave = setTimeout(saveView, 300);
	}

	function drawTimeline() {
		if (!ui.timeline)
			return;
		var w = pageWidth(), scale = w / (tl.to - tl.from), deepest = 0;
		tl.drawn = [];
		tl.rects.forEach(function (r) {
			if (r.to < tl.from || r.from > tl.to || r.depth < 0)
				return;
			var x0 = Math.max(0, (r.from - tl.from) * scale), x1 = Math.min(w, (r.to - tl.from) * scale);
			if (x1 - x0 < MIN_PX)
				return;
			tl.drawn.push({ r: r, x: x0, w: x1 - x0, y: r.depth * TL_H });
			deepest = Math.max(deepest, r.depth);
		});
		var ctx = fitCanvas(ui.timeline, w, (deepest + 1) * TL_H + 2);
		ctx.font = FONT;
		ctx.textBaseline = "middle";
		tl.drawn.forEach(function (f) {
			ctx.fillStyle = matches(f.r.node) ? HIGHLIGHT : colorOf(f.r.node);
			ctx.fillRect(f.x, f.y, Math.max(f.w - 0.5, 0.3), TL_H - 1);
			var fit = Math.floor((f.w - 6) / CHAR_W), s = nameOf(f.r.node);
			if (fit >= 3) {
				ctx.fillStyle = "black";
				ctx.fillText(s.length > fit ? s.slice(0, fit - 2) + ".." : s, f.x + 3, f.y + TL_H / 2);
			}
		});
		ui.timeline.dataset.from = tl.from;
		ui.timeline.dataset.to = tl.to;
	}

	function timelineAt(ev) {
		var b = ui.timeline.getBoundingClientRect(), x = ev.clientX - b.left, y = ev.clientY - b.top;
		for (var k = tl.drawn.length - 1; k >= 0; k--) {
			var f = tl.drawn[k];
			if (x >= f.x && x < f.x + f.w && y >= f.y && y < f.y + TL_H)
				return f.r;
		}
		return null;
	}

	// Zooms by factor around time t (ns), within the capture.
	function zoomTimeline(t, factor) {
		var len = Math.max((tl.to - tl.from) * factor, 1000);
		var from = t - (t - tl.from) * len / (tl.to - tl.from);
		tl.from = Math.max(0, from);
		tl.to = tl.from + len;
		drawTimeline();
		saveTimeline();
	}

	function timelineEvents() {
		if (!ui.timeline)
			return;
		var pan = null;
		ui.thread.addEventListener("change", function () {
			setThread(+ui.thread.value);
			saveView();
		});
		ui.tlReset.addEventListener("click", function () {
			resetTimeline();
			saveView();
		});
		ui.timeline.addEventListener("wheel", function (ev) {
			var b = ui.timeline.getBoundingClientRect();
			ev.preventDefault();
			zoomTimeline(tl.from + (ev.clientX - b.left) / b.width * (tl.to - tl.from),
				     ev.deltaY < 0 ? 0.8 : 1.25);
		}, { passive: false });
		ui.timeline.addEventListener("mousedown", function (ev) {
			pan = { x: ev.clientX, from: tl.from, to: tl.to };
		});
		window.addEventListener("mouseup", function () {
			pan = null;
		});
		ui.timeline.addEventListener("mousemove", function (ev) {
			if (pan) {
				var dt = (pan.x - ev.clientX) / ui.timeline.getBoundingClientRect().width *
					(pan.to - pan.from);
				dt = Math.max(dt, -pan.from);
				tl.from = pan.from + dt;
				tl.to = pan.to + dt;
				drawTimeline();
				saveTimeline();
				return;
			}
			var r = timelineAt(ev);
			ui.tlDetails.textContent = r ? nameOf(r.node) + " (from " + (r.from / 1e9).toFixed(6) +
				" s, " + fmtNs(r.to - r.from) + ")" + callArgs(r) : "\u00a0";
		});
	}

	// For scripts and tests: what is drawn, and the data behind it.
	window.flamebpfReport = {
		frames: function () {
			return drawn.map(function (f) {
				return { name: nameOf(f.node), x: f.x, y: frameY(f.depth), w: f.w, depth: f.depth,
					 fill: fillOf(f), parent: f.parent };
			});
		},
		heat: function () {
			return { rows: heat.rows, cols: heat.cols, max: heat.max,
				 values: Array.prototype.slice.call(heat.values) };
		},
		selection: function () {
			return sel ? sel.slice() : null;
		},
		total: function () {
			return totW[N];
		},
		select: select,
		search: search,
		// The timeline: its thread, window (ns), the rectangles drawn
		// ({name, from, to, depth, x, y, w, args}) and all of the thread's
		// (rects, drawn or too narrow: {name, from, to, depth, args});
		// with a thread index, shows that one's.
		timeline: function (t) {
			if (t !== undefined)
				setThread(t);
			return { thread: tl.thread, from: tl.from, to: tl.to, drawn: tl.drawn.map(function (f) {
				return { name: nameOf(f.r.node), from: f.r.from, to: f.r.to, depth: f.r.depth,
					 x: f.x, y: f.y, w: f.w, args: callArgs(f.r) };
			}), rects: tl.rects.map(function (r) {
				return { name: nameOf(r.node), from: r.from, to: r.to, depth: r.depth,
					 args: callArgs(r) };
			}) };
		},
		// diff's rows as the page shows them, or null for no diff.
		diff: function () {
			return diff && Array.prototype.map.call(ui.diffBody.rows, function (tr) {
				return Array.prototype.map.call(tr.cells, function (td) {
					return td.textContent;
				});
			});
		},
		// [{key, name, weight}] of the picker, and the chosen one's key or null.
		processes: function () {
			return procKeys.map(function (key, k) {
				return { key: key, name: procName[k], weight: procW[k] };
			});
		},
		process: function () {
			return procChosen < 0 ? null : procKeys[procChosen];
		},
		// The sandwich shown ({name, callers, callees}: each tree's nodes as
		// {path: names from the function, w}, drawn or not), or null; with
		// a name, shows that function's first.
		sandwich: function (name) {
			if (name !== undefined)
				showSandwich(funcNamed(name));
			if (sandwichFunc < 0)
				return null;
			var trees = sandwichTrees(sandwichFunc);
			return { name: fname[sandwichFunc], callers: treeList(trees.callers),
				 callees: treeList(trees.callees),
				 drawn: { callers: sandwichDrawn.callers.map(treeFrame),
					  callees: sandwichDrawn.callees.map(treeFrame) } };
		},
		zoomTo: function (name) {
			for (var k = 0; k < drawn.length; k++)
				if (nameOf(drawn[k].node) === name)
					return zoom(drawn[k].node);
		}
	};

	build();
	heatEvents();
	flameEvents();
	tableEvents();
	sandwichEvents();
	timelineEvents();
	if (ui.thread && ui.thread.options.length)
		setThread(+ui.thread.value);
	loadView();
	window.addEventListener("hashchange", loadView);
	window.flamebpfReport.readyMs = performance.now();
	doc.body.setAttribute("data-ready", "1");
})();

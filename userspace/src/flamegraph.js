// SPDX-License-Identifier: MIT
/*
 * i915-stalls flame graph: the script inlined into every SVG the reader
 * writes (ordinary and differential), with flamegraph.css.  Nothing is
 * fetched; the file works from file://, and without script it still shows
 * the frames as the writer laid them out.  docs/bisect.md, "SVG contract",
 * is the full contract; in short, what this script reads:
 *
 *   <svg class="i915-flame [diff]" data-unit="us">
 *     <text id="unzoom" class="control hide">  <text id="search" class="control">
 *     <text id="details">  <text id="matched">
 *     <g class="pane" id="pane-main|pane-new|pane-gone" data-label="..."
 *        data-x="PX" data-width="PX" data-total="S" data-span="S">
 *       <g class="frame KIND [unresolved]" data-name="NAME" data-depth="D"
 *          data-start="S" data-samples="S" [data-delta="S"]>
 *         <title>...</title><rect x y width height fill/><text x y>label</text>
 *       </g>...
 *     </g>
 *   </svg>
 *
 * KIND is one of root, task, user, kernel.  S are samples (stall time in
 * the unit, or stalls): decimal numbers.  A frame's x is
 * data-x + data-start * data-width / data-span, its width data-samples *
 * data-width / data-span; depth 0 is the pane's root frame.
 *
 * What it does: a click on a frame zooms its pane so that the frame spans
 * data-width (its ancestors too, everything else hidden); "Reset Zoom",
 * a click on the root frame or Escape undoes it.  "Search" (or Ctrl-F)
 * asks for a regular expression (a substring if it does not compile),
 * highlights the frames whose data-name matches (class "match") and shows
 * the matched share of each pane's data-total, a nested match counted
 * once.  Hovering a frame shows its <title> in #details.
 */
"use strict";
(function () {
	var SVGNS = "http://www.w3.org/2000/svg";
	var svg = null, panes = [], fontw = 7.2, lastTerm = null;

	function num(e, a) {
		var v = parseFloat(e.getAttribute(a));
		return isFinite(v) ? v : 0;
	}

	function byId(id) {
		return document.getElementById(id);
	}

	function loadPane(g) {
		var p = {
			g: g,
			id: g.getAttribute("id") || "",
			label: g.getAttribute("data-label") || "",
			x: num(g, "data-x"),
			width: num(g, "data-width"),
			total: num(g, "data-total"),
			span: num(g, "data-span") || num(g, "data-total"),
			frames: [],
			zoomed: null
		};
		var list = g.querySelectorAll("g.frame"), i;

		for (i = 0; i < list.length; i++) {
			var e = list[i], s = num(e, "data-start"), n = num(e, "data-samples");

			p.frames.push({
				g: e,
				rect: e.querySelector("rect"),
				text: e.querySelector("text"),
				name: e.getAttribute("data-name") || "",
				depth: num(e, "data-depth"),
				start: s,
				samples: n,
				end: s + n,
				pane: p
			});
			e.__frame = p.frames[p.frames.length - 1];
		}
		p.eps = 1e-9 * (p.span > 0 ? p.span : 1);
		return p;
	}

	/* the label: the name, cut with ".." to what fits, nothing below 3 characters */
	function place(f, x, w) {
		var n = Math.floor((w - 6) / fontw), s = f.name;

		f.rect.setAttribute("x", x.toFixed(2));
		f.rect.setAttribute("width", Math.max(w, 0).toFixed(2));
		if (!f.text)
			return;
		if (n < 3)
			s = "";
		else if (s.length > n)
			s = s.slice(0, n - 2) + "..";
		f.text.textContent = s;
		f.text.setAttribute("x", (x + 3).toFixed(2));
	}

	function show(f, on) {
		f.g.classList.toggle("hide", !on);
	}

	function layout(p) {
		var z = p.zoomed, i;

		for (i = 0; i < p.frames.length; i++) {
			var f = p.frames[i];

			f.g.classList.remove("parent");
			if (!z) {
				var k = p.span > 0 ? p.width / p.span : 0;

				place(f, p.x + f.start * k, f.samples * k);
				show(f, true);
			} else if (f.depth >= z.depth && f.start >= z.start - p.eps &&
				   f.end <= z.end + p.eps) {
				var kz = p.width / z.samples;

				place(f, p.x + (f.start - z.start) * kz, f.samples * kz);
				show(f, true);
			} else if (f.depth < z.depth && f.start <= z.start + p.eps &&
				   f.end >= z.end - p.eps) {
				place(f, p.x, p.width);
				f.g.classList.add("parent");
				show(f, true);
			} else {
				show(f, false);
			}
		}
	}

	function anyZoomed() {
		return panes.some(function (p) { return p.zoomed; });
	}

	function zoom(f) {
		var p = f.pane;

		p.zoomed = f.depth === 0 || !(f.samples > 0) ? null : f;
		layout(p);
		byId("unzoom").classList.toggle("hide", !anyZoomed());
	}

	function unzoom() {
		panes.forEach(function (p) {
			p.zoomed = null;
			layout(p);
		});
		byId("unzoom").classList.add("hide");
	}

	function compile(term) {
		try {
			return new RegExp(term);
		} catch (e) {
			return new RegExp(term.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
		}
	}

	function pct(v, total) {
		return total > 0 ? (100 * v / total).toFixed(2) + "%" : "0.00%";
	}

	/* Samples of the matching frames of p, a frame inside a counted one skipped. */
	function matchedSamples(p, m) {
		var sum = 0, end = -Infinity, i;

		m.sort(function (a, b) { return a.start - b.start || a.depth - b.depth; });
		for (i = 0; i < m.length; i++) {
			if (m[i].start >= end - p.eps) {
				sum += m[i].samples;
				end = m[i].end;
			}
		}
		return sum;
	}

	function search(term) {
		var re = compile(term), parts = [];

		lastTerm = term;
		panes.forEach(function (p) {
			var m = [];

			p.frames.forEach(function (f) {
				var hit = re.test(f.name);

				f.g.classList.toggle("match", hit);
				if (hit)
					m.push(f);
			});
			parts.push((panes.length > 1 ? p.label + " " : "") +
				   pct(matchedSamples(p, m), p.total));
		});
		var t = byId("matched");
		t.textContent = "Matched: " + parts.join(", ");
		t.classList.remove("hide");
		byId("search").classList.add("active");
	}

	function clearSearch() {
		lastTerm = null;
		panes.forEach(function (p) {
			p.frames.forEach(function (f) { f.g.classList.remove("match"); });
		});
		byId("matched").textContent = " ";
		byId("search").classList.remove("active");
	}

	function askSearch() {
		if (lastTerm !== null) {
			clearSearch();
			return;
		}
		var term = window.prompt("Search frames (regular expression, e.g. ^i915_)", "");
		if (term)
			search(term);
	}

	function frameOf(e) {
		var g = e && e.closest ? e.closest("g.frame") : null;
		return g && g.__frame ? g.__frame : null;
	}

	function init() {
		svg = document.documentElement;
		var probe = document.createElementNS(SVGNS, "text"), i;

		probe.setAttribute("class", "probe");
		probe.setAttribute("x", "0");
		probe.setAttribute("y", "-100");
		probe.textContent = "mmmmmmmmmmmmmmmmmmmm";
		svg.appendChild(probe);
		if (probe.getComputedTextLength() > 0)
			fontw = probe.getComputedTextLength() / 20;
		svg.removeChild(probe);

		var gs = svg.querySelectorAll("g.pane");
		for (i = 0; i < gs.length; i++)
			panes.push(loadPane(gs[i]));
		panes.forEach(layout);

		svg.addEventListener("click", function (ev) {
			var t = ev.target, f = frameOf(t);

			if (f) {
				zoom(f);
			} else if (t.closest && t.closest("#unzoom")) {
				unzoom();
			} else if (t.closest && t.closest("#search")) {
				askSearch();
			}
		});
		svg.addEventListener("mouseover", function (ev) {
			var f = frameOf(ev.target), d = byId("details");
			var title = f ? f.g.querySelector("title") : null;

			if (d)
				d.textContent = title ? title.textContent : " ";
		});
		window.addEventListener("keydown", function (ev) {
			if ((ev.ctrlKey && ev.key === "f") || ev.key === "F3") {
				ev.preventDefault();
				lastTerm = null;
				askSearch();
			} else if (ev.key === "Escape") {
				clearSearch();
				unzoom();
			}
		});
		window.i915flame = { search: search, clearSearch: clearSearch, zoom: zoom,
				     unzoom: unzoom, panes: panes };
		svg.setAttribute("data-ready", "1");
	}

	window.addEventListener("load", init);
})();

// SPDX-License-Identifier: MIT
/*
 * Render i915-stalls flame graph SVGs in Debian's headless Chromium
 * (playwright-core, never a downloaded browser) and check what a person
 * would do with them: the picture is not blank, the labels are there,
 * kernel frames have their own hue, a click zooms, Reset Zoom undoes it,
 * a search highlights exactly the matching frames and shows their share.
 *
 *   node check.js OUTFILE [--expect EXPECT.json] SVG [[--expect E] SVG...]
 *
 * One "ok NAME" / "not ok NAME" line per check on stdout and appended to
 * OUTFILE, NAME = svg basename + ":" + check.  Without --expect the
 * expectations are derived from the SVG's own data attributes (any SVG
 * in the contract of docs/bisect.md, as the reader writes them); with it,
 * from a hand-written file (tests/browser/cases/*.expect.json).
 * Exit status 1 if any check failed.
 */
"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");
const { chromium } = require("playwright-core");

const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
	       "--disable-background-networking", "--disable-component-update", "--disable-sync"];
const HIGHLIGHT = "rgb(230, 0, 230)";

let out = null, nfail = 0, npass = 0;

function report(name, ok, why) {
	const line = (ok ? "ok " : "not ok ") + name;
	console.log(line);
	if (!ok)
		for (const w of [].concat(why || []))
			console.log("#   " + w);
	fs.appendFileSync(out, line + "\n");
	if (ok)
		npass++;
	else
		nfail++;
}

/* Run fn(fail) as check NAME: it fails if fail() was called or fn threw. */
async function check(name, fn) {
	const why = [];
	try {
		await fn((msg) => why.push(msg));
	} catch (e) {
		why.push("exception: " + (e && e.stack ? e.stack.split("\n").slice(0, 3).join(" | ") : e));
	}
	report(name, why.length === 0, why);
}

function near(a, b, tol) {
	return Math.abs(a - b) <= tol;
}

/* ------------------------------------------------------------ page helpers */

/* Every frame as written (data attributes) and as drawn (rect box). */
function readFrames(page) {
	return page.evaluate(() => {
		const r = [];
		document.querySelectorAll("g.pane").forEach((p) => {
			p.querySelectorAll("g.frame").forEach((g, i) => {
				const rect = g.querySelector("rect"), text = g.querySelector("text");
				const b = rect.getBoundingClientRect(), cs = getComputedStyle(rect);
				const tb = text ? text.getBoundingClientRect() : null;
				r.push({
					pane: p.id, index: i,
					name: g.getAttribute("data-name"),
					cls: g.getAttribute("class"),
					depth: +g.getAttribute("data-depth"),
					start: +g.getAttribute("data-start"),
					samples: +g.getAttribute("data-samples"),
					delta: g.hasAttribute("data-delta") ? +g.getAttribute("data-delta") : null,
					fillAttr: rect.getAttribute("fill"),
					fill: cs.fill, stroke: cs.stroke,
					shown: cs.display !== "none" && getComputedStyle(g).display !== "none" &&
						b.width > 0,
					x: b.x, y: b.y, w: b.width, h: b.height,
					label: text ? text.textContent : null,
					labelShown: !!tb && tb.width > 0,
				});
			});
		});
		return r;
	});
}

function readPanes(page) {
	return page.evaluate(() => {
		const svg = document.documentElement;
		const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
		return Array.from(document.querySelectorAll("g.pane")).map((p) => ({
			id: p.id, label: p.getAttribute("data-label"),
			x: +p.getAttribute("data-x"), width: +p.getAttribute("data-width"),
			total: +p.getAttribute("data-total"),
			span: +(p.getAttribute("data-span") || p.getAttribute("data-total")),
			scale,
		}));
	});
}

function textOf(page, id) {
	return page.evaluate((i) => {
		const e = document.getElementById(i);
		return e ? { text: e.textContent, shown: getComputedStyle(e).display !== "none" &&
			     e.getBoundingClientRect().width > 0 } : null;
	}, id);
}

/*
 * Decode a PNG screenshot in a blank page's canvas: the pixels that are
 * not the background colour, and the colours at some points.
 */
async function pixels(decoder, png, bg, points) {
	return decoder.evaluate(async ({ b64, bg, points }) => {
		const img = new Image();
		img.src = "data:image/png;base64," + b64;
		await img.decode();
		const c = document.createElement("canvas");
		c.width = img.width;
		c.height = img.height;
		const g = c.getContext("2d");
		g.drawImage(img, 0, 0);
		const d = g.getImageData(0, 0, c.width, c.height).data;
		let n = 0;
		for (let i = 0; i < d.length; i += 4)
			if (Math.abs(d[i] - bg[0]) + Math.abs(d[i + 1] - bg[1]) + Math.abs(d[i + 2] - bg[2]) > 24)
				n++;
		const at = points.map(([x, y]) => {
			const i = (Math.round(y) * c.width + Math.round(x)) * 4;
			return [d[i], d[i + 1], d[i + 2]];
		});
		return { nonbg: n, total: c.width * c.height, at };
	}, { b64: png.toString("base64"), bg, points });
}

function rgbOf(s) {
	const m = /rgb\((\d+),\s*(\d+),\s*(\d+)\)/.exec(s || "");
	return m ? [+m[1], +m[2], +m[3]] : null;
}

/* ------------------------------------------------------------ expectations */

function escapeRe(s) {
	return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/* The regex the script is documented to use: the term, or the substring. */
function termRe(term) {
	try {
		return new RegExp(term);
	} catch (e) {
		return new RegExp(escapeRe(term));
	}
}

/*
 * The matched share of each pane, computed here the slow way: a matching
 * frame counts unless one of its ancestors (a matching frame of the same
 * pane below it whose range holds it) matches too.
 */
function matchedText(frames, panes, re) {
	const parts = panes.map((p) => {
		const m = frames.filter((f) => f.pane === p.id && re.test(f.name));
		let sum = 0;
		for (const f of m) {
			const inside = m.some((a) => a.depth < f.depth && a.start <= f.start + 1e-9 &&
					      a.start + a.samples >= f.start + f.samples - 1e-9);
			if (!inside)
				sum += f.samples;
		}
		const pct = p.total > 0 ? (100 * sum / p.total).toFixed(2) + "%" : "0.00%";
		return (panes.length > 1 ? p.label + " " : "") + pct;
	});
	return "Matched: " + parts.join(", ");
}

function derive(frames, panes) {
	const exp = { mode: panes.length > 1 ? "diff" : "flame", labels: [], searches: [] };
	const main = panes[0];
	const mf = frames.filter((f) => f.pane === main.id && f.depth > 0);
	/* labels: the three widest frames whose whole name fits at 8 px a character */
	const fits = mf.filter((f) => f.w >= 6 + 8 * f.name.length).sort((a, b) => b.w - a.w);
	const seen = new Set();
	for (const f of fits) {
		if (exp.labels.length < 3 && !seen.has(f.name)) {
			exp.labels.push(f.name);
			seen.add(f.name);
		}
	}
	/* zoom: the widest frame under 90% of the pane with a child */
	const kids = (f) => mf.filter((c) => c.depth === f.depth + 1 && c.start >= f.start - 1e-9 &&
				     c.start + c.samples <= f.start + f.samples + 1e-9);
	const cand = mf.filter((f) => f.samples <= 0.9 * main.total && kids(f).length)
		.sort((a, b) => b.samples - a.samples);
	if (cand.length) {
		const z = cand[0], c = kids(z).sort((a, b) => b.samples - a.samples)[0];
		const hidden = mf.find((f) => f.depth === z.depth && f !== z);
		exp.zoom = { frameRef: z, childRef: c, child_share: c.samples / z.samples,
			     hiddenRef: hidden || null };
	}
	/* search: exactly the name of the widest kernel frame (else any frame) */
	const k = mf.filter((f) => /\bkernel\b/.test(f.cls)).sort((a, b) => b.samples - a.samples)[0] ||
		  mf.sort((a, b) => b.samples - a.samples)[0];
	if (k) {
		const term = "^" + escapeRe(k.name) + "$";
		exp.searches.push({ term, count: frames.filter((f) => f.name === k.name).length });
	}
	const kf = mf.find((f) => /\bkernel\b/.test(f.cls));
	const uf = mf.find((f) => /\buser\b/.test(f.cls) && !/\bunresolved\b/.test(f.cls));
	if (kf)
		exp.kernel_frame = kf.name;
	if (uf)
		exp.user_frame = uf.name;
	return exp;
}

/* A frame by name, in pane (if given) or anywhere; it must be unique. */
function byName(frames, name, pane) {
	const m = frames.filter((f) => f.name === name && (!pane || f.pane === pane));
	if (m.length !== 1)
		throw new Error(`frame "${name}"${pane ? " in " + pane : ""}: ${m.length} frames`);
	return m[0];
}

function same(a, b) {
	return a.pane === b.pane && a.index === b.index;
}

/* ------------------------------------------------------------ the checks */

async function checkSvg(ctx, decoder, file, expectFile) {
	const base = path.basename(file).replace(/\.svg$/, "");
	const page = await ctx.newPage();
	const errors = [], requests = [];
	page.on("pageerror", (e) => errors.push("page error: " + e.message));
	page.on("console", (m) => { if (m.type() === "error") errors.push("console: " + m.text()); });
	page.on("request", (r) => { if (!r.url().startsWith("file:")) requests.push(r.url()); });
	page.on("dialog", (d) => d.dismiss());	/* replaced per search below */

	let frames0 = [], panes = [], exp = null;
	await check(base + ":loads", async (fail) => {
		await page.goto("file://" + path.resolve(file));
		/* the whole picture in the viewport (fullPage does not work on SVG documents) */
		const size = await page.evaluate(() => {
			const b = document.documentElement.getBoundingClientRect();
			return { w: Math.ceil(b.width), h: Math.ceil(b.height) };
		});
		await page.setViewportSize({ width: Math.max(size.w + 40, 1240),
					     height: Math.min(Math.max(size.h + 20, 300), 16000) });
		await page.waitForFunction(() => document.documentElement.getAttribute("data-ready") === "1",
					   null, { timeout: 10000 }).catch(() => fail("the script did not run "
					   + "(no data-ready)"));
		frames0 = await readFrames(page);
		panes = await readPanes(page);
		if (!panes.length)
			fail("no g.pane");
		if (!frames0.length)
			fail("no g.frame");
		for (const e of errors)
			fail(e);
		for (const r of requests)
			fail("fetched " + r);
		for (const f of frames0) {
			if (!(f.samples >= 0) || !(f.start >= 0) || !Number.isInteger(f.depth) || !f.name)
				fail(`frame ${f.pane}#${f.index}: bad data attributes`);
		}
		exp = expectFile ? JSON.parse(fs.readFileSync(expectFile, "utf8")) : derive(frames0, panes);
		if (exp.mode === "diff" && panes.length !== 2)
			fail(`differential: ${panes.length} panes, want 2 (NEW and vanished)`);
	});
	if (!frames0.length || !exp) {
		await page.close();
		return;
	}
	const scale = panes[0].scale;

	await check(base + ":not_blank", async (fail) => {
		const bg = rgbOf(await page.evaluate(() => {
			const r = document.querySelector("rect.background");
			return r ? getComputedStyle(r).fill : "rgb(255, 255, 255)";
		}));
		const box = await page.evaluate(() => {
			const b = document.documentElement.getBoundingClientRect();
			return { x: b.x, y: b.y, width: b.width, height: b.height };
		});
		const png = await page.screenshot({ clip: box });
		/* the frames' area as the data attributes lay them out (15 px rows) */
		let area = 0;
		for (const f of frames0) {
			const p = panes.find((q) => q.id === f.pane);
			const w = p.span > 0 ? f.samples * p.width / p.span * scale : 0;
			if (w >= 1)
				area += w * 15 * scale;
		}
		const px = await pixels(decoder, png, bg, []);
		/* at least half of that area is drawn in something else than the background */
		if (!(px.nonbg >= 0.5 * area) || area < 1000)
			fail(`${px.nonbg} of ${px.total} pixels not background; the frames cover ` +
			     `${area.toFixed(0)} px`);
	});

	await check(base + ":labels", async (fail) => {
		if (!exp.labels.length)
			fail("no label to look for");
		for (const l of exp.labels) {
			const loc = page.getByText(l, { exact: true });
			const n = await loc.count();
			let vis = 0;
			for (let i = 0; i < n; i++)
				if (await loc.nth(i).isVisible())
					vis++;
			if (!vis)
				fail(`label "${l}": ${n} elements, none visible`);
		}
		if (exp.subtitle) {
			const s = await textOf(page, "subtitle");
			if (!s || s.text !== exp.subtitle || !s.shown)
				fail(`subtitle "${s && s.text}", want "${exp.subtitle}"`);
		}
		if (exp.mode === "diff" && !(await page.locator("#legend").count()))
			fail("no #legend");
	});

	await check(base + ":colours", async (fail) => {
		const pts = [], names = [];
		const add = (f, what) => { pts.push([f.x + 1.5, f.y + f.h / 2]); names.push([f, what]); };
		if (exp.kernel_frame)
			add(frames0.find((f) => f.name === exp.kernel_frame), "kernel");
		if (exp.user_frame)
			add(frames0.find((f) => f.name === exp.user_frame), "user");
		for (const n of Object.keys(exp.fills || {}))
			add(byName(frames0, n), n);
		if (!pts.length)
			fail("no frame to check the colour of");
		const png = await page.screenshot();
		const px = await pixels(decoder, png, [0, 0, 0], pts.map(([x, y]) => [x * 1, y * 1]));
		names.forEach(([f, what], i) => {
			const [r, g, b] = px.at[i];
			if (what === "kernel") {
				if (!/\bkernel\b/.test(f.cls))
					fail(`${f.name}: class "${f.cls}" lacks kernel`);
				if (exp.mode === "diff") {
					if (f.stroke !== "rgb(0, 140, 140)")
						fail(`${f.name}: kernel outline ${f.stroke}`);
				} else if (!(b > r + 40 && g > r + 40)) {
					fail(`${f.name}: kernel frame drawn rgb(${r},${g},${b}), not aqua`);
				}
			} else if (what === "user") {
				if (!(r > b + 100))
					fail(`${f.name}: user frame drawn rgb(${r},${g},${b}), not warm`);
			} else {
				const want = exp.fills[what], w = rgbOf(want);
				if (f.fillAttr.replace(/\s/g, "") !== want)
					fail(`${what}: fill attribute ${f.fillAttr}, want ${want}`);
				if (!(near(r, w[0], 3) && near(g, w[1], 3) && near(b, w[2], 3)))
					fail(`${what}: drawn rgb(${r},${g},${b}), want ${want}`);
			}
		});
	});

	await check(base + ":zoom", async (fail) => {
		const z = exp.zoom;
		if (!z)
			throw new Error("nothing to zoom into");
		const f = z.frameRef || byName(frames0, z.frame);
		const pane = panes.find((p) => p.id === f.pane);
		const c = z.childRef || byName(frames0, z.child, f.pane);
		const hid = z.hiddenRef || (z.hidden ? byName(frames0, z.hidden, f.pane) : null);
		const par = z.parent ? byName(frames0, z.parent, f.pane) : null;
		const other = z.other_pane_frame ? byName(frames0, z.other_pane_frame) : null;
		const full = pane.width * scale;
		if (near(f.w, full, 1))
			fail(`${f.name} already spans the pane`);
		/* click where a person would: the middle of the frame */
		await page.mouse.click(f.x + f.w / 2, f.y + f.h / 2);
		let now = await readFrames(page);
		const get = (g) => now.find((x) => same(x, g));
		const F = get(f), C = get(c);
		if (!near(F.w, full, 1) || !near(F.x, pane.x * scale, 1))
			fail(`after the click ${f.name} is ${F.w.toFixed(1)} px at ${F.x.toFixed(1)}, ` +
			     `want ${full.toFixed(1)} at ${(pane.x * scale).toFixed(1)}`);
		if (!near(C.w, full * z.child_share, 1))
			fail(`child ${c.name}: ${C.w.toFixed(1)} px, want ${(full * z.child_share).toFixed(1)}`);
		if (hid && get(hid).shown)
			fail(`${hid.name} (not under ${f.name}) still shown`);
		if (par && !near(get(par).w, full, 1))
			fail(`ancestor ${par.name}: ${get(par).w.toFixed(1)} px, want the full width`);
		if (other && !near(get(other).w, other.w, 0.5))
			fail(`${other.name} in the other pane changed: ${get(other).w} px, was ${other.w}`);
		const un = await textOf(page, "unzoom");
		if (!un || !un.shown)
			fail("Reset Zoom not shown after zooming");
		/* Reset Zoom puts every frame back */
		await page.locator("#unzoom").click();
		now = await readFrames(page);
		for (const g of frames0) {
			const x = get(g);
			if (!near(x.w, g.w, 0.5) || x.shown !== g.shown) {
				fail(`after Reset Zoom ${g.name}: ${x.w.toFixed(1)} px, was ${g.w.toFixed(1)}`);
				break;
			}
		}
		const un2 = await textOf(page, "unzoom");
		if (un2 && un2.shown)
			fail("Reset Zoom still shown after reset");
	});

	let si = 0;
	for (const s of exp.searches) {
		si++;
		await check(`${base}:search${si}`, async (fail) => {
			const re = termRe(s.term);
			const want = frames0.filter((f) => re.test(f.name));
			if (s.frames) {
				const names = [...new Set(want.map((f) => f.name))].sort();
				if (JSON.stringify(names) !== JSON.stringify([...s.frames].sort()))
					fail(`term ${s.term} should match ${s.frames}, the SVG has ${names}`);
			}
			if (s.count !== undefined && want.length !== s.count)
				fail(`term ${s.term}: ${want.length} frames match in the SVG, want ${s.count}`);
			page.removeAllListeners("dialog");
			page.once("dialog", (d) => d.accept(s.term));
			await page.locator("#search").click();
			const now = await readFrames(page);
			let bad = 0;
			for (const f of now) {
				const hit = f.fill === HIGHLIGHT, should = want.some((w) => same(w, f));
				if (hit !== should && bad++ < 5)
					fail(`${f.pane} ${f.name}: ${hit ? "highlighted" : "not highlighted"}`);
			}
			const m = await textOf(page, "matched");
			const wantText = s.matched || matchedText(frames0, panes, re);
			if (s.matched && s.matched !== matchedText(frames0, panes, re))
				fail(`expectation "${s.matched}" but the SVG's data give "${matchedText(frames0, panes, re)}"`);
			if (!m || m.text !== wantText || !m.shown)
				fail(`matched text "${m && m.text}", want "${wantText}"`);
			/* clicking Search again clears it */
			await page.locator("#search").click();
			const after = await readFrames(page);
			if (after.some((f) => f.fill === HIGHLIGHT))
				fail("highlight left after clearing the search");
		});
	}
	if (!exp.searches.length)
		report(base + ":search", false, "no search term");
	await page.close();
}

async function main() {
	const argv = process.argv.slice(2);
	out = argv.shift();
	if (!out || !argv.length) {
		console.error("usage: node check.js OUTFILE [--expect E.json] SVG...");
		process.exit(64);
	}
	const jobs = [];
	for (let i = 0; i < argv.length; i++) {
		if (argv[i] === "--expect")
			jobs.push({ expect: argv[++i], svg: argv[++i] });
		else
			jobs.push({ svg: argv[i] });
	}
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), "i915-flame-chromium-"));
	let ctx;
	try {
		ctx = await chromium.launchPersistentContext(dir, {
			executablePath: CHROMIUM, headless: true, args: FLAGS,
			viewport: { width: 1240, height: 900 }, offline: true,
		});
	} catch (e) {
		report("browser:launch", false, String(e.message || e).split("\n").slice(0, 4));
		process.exit(1);
	}
	const decoder = ctx.pages()[0] || await ctx.newPage();
	await decoder.setContent("<!doctype html><title>decoder</title>");
	for (const j of jobs)
		await checkSvg(ctx, decoder, j.svg, j.expect);
	await ctx.close();
	fs.rmSync(dir, { recursive: true, force: true });
	console.log(`# browser: ${npass} passed, ${nfail} failed`);
	process.exit(nfail ? 1 : 0);
}

main();

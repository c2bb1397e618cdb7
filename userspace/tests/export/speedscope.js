// SPDX-License-Identifier: MIT
/*
 * Load i915-stalls output in speedscope (npm "speedscope", its built page
 * served on 127.0.0.1) in Debian's headless Chromium (playwright-core, no
 * downloaded browser), and check what speedscope shows: every profile's
 * Sandwich table (the functions, or slices, by name) against what the
 * expectation file says, and a screenshot of each.
 *
 *   node speedscope.js OUTFILE OUTDIR EXPECT.json
 *
 * EXPECT.json (made by speedscope_expect.py from the reader's own reports):
 *   [{"name": CHECK, "file": PROFILE, "import": "linux perf script output",
 *     "profiles": [[NAME, ...], ...],      every profile's names, any order
 *     "values": {NAME: [TOTAL_NS, SELF_NS]},  optional: one profile's weights
 *     "shot": NAME}]                       the profile to photograph: the
 *                                          one that has NAME (or a slice
 *                                          NAME with its arguments)
 * One "ok speedscope:CHECK" / "not ok ..." line per check, on stdout and
 * appended to OUTFILE; OUTDIR/speedscope-CHECK.png the screenshots.
 */
"use strict";
const fs = require("fs");
const http = require("http");
const os = require("os");
const path = require("path");
const { chromium } = require("playwright-core");

const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
	       "--disable-background-networking", "--disable-component-update", "--disable-sync"];
const ROOT = path.join(__dirname, "node_modules", "speedscope", "dist", "release");
const [outFile, outDir, expectFile] = process.argv.slice(2);
let nfail = 0;

function report(name, why) {
	const line = (why.length ? "not ok " : "ok ") + "speedscope:" + name;
	console.log(line);
	for (const w of why.slice(0, 30))
		console.log("#   " + w);
	fs.appendFileSync(outFile, line + "\n");
	if (why.length)
		nfail++;
}

/* "13.00ms", "700.00µs", "2.00s", "0.00ns", "1": nanoseconds (or a count) */
function value(s) {
	const m = /^([\d.]+)(ns|µs|ms|s|)$/.exec(s.trim());
	if (!m)
		return NaN;
	return parseFloat(m[1]) * { ns: 1, "µs": 1e3, ms: 1e6, s: 1e9, "": 1 }[m[2]];
}

/* The Sandwich table of the profile shown: {name: [total, self]} as text. */
async function sandwich(page) {
	await page.keyboard.press("3");
	await page.waitForTimeout(150);
	const text = await page.evaluate(() => document.body.innerText);
	const lines = text.split("\n");
	const h = lines.findIndex((l) => /^Total\s+Self\s+Symbol Name/.test(l));
	const rows = {};
	if (h < 0)
		return null;
	for (let i = h + 1; i + 2 < lines.length + 1; i += 3) {
		const total = lines[i], self = lines[i + 1], name = lines[i + 2];
		if (name === undefined)
			break;
		rows[name.replace(/^\t/, "")] = [total.replace(/ \(.*\)$/, ""), self.replace(/^\t/, "").replace(/ \(.*\)$/, "")];
	}
	return rows;
}

async function title(page) {
	return page.evaluate(() => {
		const t = document.body.innerText.split("\n").find((l) => /^check\b/.test(l));
		return t || "";
	});
}

async function check(browser, base, c) {
	const why = [];
	const logs = [];
	const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
	page.on("console", (m) => logs.push(m.text()));
	page.on("pageerror", (e) => why.push("page error: " + e.message));
	try {
		const url = `${base}/profile/${encodeURIComponent(path.basename(c.file))}`;
		await page.goto(`${base}/index.html#profileURL=${encodeURIComponent(url)}&title=check`);
		await page.waitForFunction(() => /Sandwich/.test(document.body.innerText) &&
			/^check/m.test(document.body.innerText), null, { timeout: 20000 });
		await page.waitForTimeout(300);
		if (!logs.some((l) => l.includes(c.import)))
			why.push(`speedscope did not import it as ${c.import}: ${logs.filter((l) => /mport/.test(l)).join("; ")}`);
		const m = /\((\d+)\/(\d+)\)/.exec(await title(page));
		const n = m ? +m[2] : 1;
		const got = [];
		let shot = -1;
		for (let i = 0; i < n; i++) {
			const rows = await sandwich(page);
			if (!rows) {
				why.push(`profile ${i + 1}: no Sandwich table`);
				break;
			}
			got.push(rows);
			if (c.shot && shot < 0 && Object.keys(rows).some((k) => k === c.shot ||
									      k.startsWith(c.shot + " {")))
				shot = i;
			if (n > 1)
				await page.keyboard.press("n");
		}
		/* the profiles' names, as multisets of sorted name lists */
		const key = (names) => JSON.stringify([...names].sort());
		const want = c.profiles.map(key).sort(), have = got.map((r) => key(Object.keys(r))).sort();
		if (want.length !== have.length)
			why.push(`${have.length} profiles, want ${want.length}`);
		const left = [...have];
		for (const w of want) {
			const i = left.indexOf(w);
			if (i < 0)
				why.push(`no profile with exactly these names: ${w.slice(0, 300)}`);
			else
				left.splice(i, 1);
		}
		for (const l of left)
			why.push(`a profile not in the log: ${l.slice(0, 300)}`);
		/* weights: speedscope prints two decimals */
		if (c.values) {
			const rows = got[0] || {};
			for (const [name, [total, self]] of Object.entries(c.values)) {
				const r = rows[name];
				if (!r) {
					why.push(`no row ${name}`);
					continue;
				}
				const [t, s] = [value(r[0]), value(r[1])];
				const tol = (x) => Math.max(x * 0.005, 5);
				if (!(Math.abs(t - total) <= tol(total)) || !(Math.abs(s - self) <= tol(self)))
					why.push(`${name}: total ${r[0]} self ${r[1]}, want ${total} ns and ${self} ns`);
			}
		}
		if (c.shot) {
			if (shot < 0) {
				why.push(`no profile has ${c.shot} to photograph`);
			} else {
				for (let i = 0; i < 2 * n && n > 1; i++) {	/* back to it */
					const mm = /\((\d+)\//.exec(await title(page));
					if (!mm || +mm[1] === shot + 1)
						break;
					await page.keyboard.press(+mm[1] > shot + 1 ? "p" : "n");
				}
				await page.keyboard.press(c.view || "1");
				await page.waitForTimeout(500);
				await page.screenshot({ path: path.join(outDir, `speedscope-${c.name}.png`) });
			}
		}
	} catch (e) {
		why.push("exception: " + (e && e.stack ? e.stack.split("\n").slice(0, 3).join(" | ") : e));
	}
	await page.close();
	report(c.name, why);
}

async function main() {
	const expect = JSON.parse(fs.readFileSync(expectFile, "utf8"));
	const files = new Map(expect.map((c) => [path.basename(c.file), c.file]));
	const server = http.createServer((req, res) => {
		const p = decodeURIComponent(req.url.split(/[?#]/)[0]);
		const f = p.startsWith("/profile/") ? files.get(p.slice(9)) :
			path.join(ROOT, path.normalize(p === "/" ? "/index.html" : p));
		if (!f || (!p.startsWith("/profile/") && !f.startsWith(ROOT))) {
			res.writeHead(404);
			res.end();
			return;
		}
		fs.readFile(f, (e, d) => {
			if (e) {
				res.writeHead(404);
				res.end();
				return;
			}
			res.writeHead(200);
			res.end(d);
		});
	});
	await new Promise((r) => server.listen(0, "127.0.0.1", r));
	const base = `http://127.0.0.1:${server.address().port}`;
	const udd = fs.mkdtempSync(path.join(os.tmpdir(), "i915-speedscope-"));
	let browser;
	try {
		browser = await chromium.launchPersistentContext(udd, { executablePath: CHROMIUM, args: FLAGS,
			headless: true });
		for (const c of expect)
			await check(browser, base, c);
	} catch (e) {
		report("setup", ["exception: " + e]);
	}
	if (browser)
		await browser.close();
	server.close();
	fs.rmSync(udd, { recursive: true, force: true });
	process.exit(nfail ? 1 : 0);
}

main();

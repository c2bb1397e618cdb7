// SPDX-License-Identifier: MIT
/* The command line: the option table, its parser, --help, default inputs. */
#include <errno.h>
#include <getopt.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "options.h"

#define VERSION "1.1"

const char *const cmd_names[C_COUNT] = { "report", "summary", "diff", "record" };

#define R (1u << C_REPORT)
#define S (1u << C_SUMMARY)
#define D (1u << C_DIFF)
#define W (1u << C_RECORD)
#define ALL (R | S | D | W)

/* The order is --help's and the man page's. */
const struct optdef opt_table[] = {
	{ "input", 'i', "FILE", ALL, "Input selection",
	  "stall file or record archive ('-' for stdin); the same as naming it" },
	{ "pid", 0, "PID", ALL, NULL, "only stalls of process PID (repeatable)" },
	{ "tid", 0, "TID", ALL, NULL, "only stalls of thread TID (repeatable)" },
	{ "comm", 0, "COMM", ALL, NULL, "only stalls of threads named COMM (repeatable)" },
	{ "site", 0, "SITE", ALL, NULL, "only stalls at SITE, a name or number (repeatable)" },
	{ "min-us", 0, "N", ALL, NULL, "only stalls of at least N microseconds" },
	{ "vmlinux", 'k', "FILE", R | S | D, "Symbols",
	  "kernel symbols from vmlinux (KASLR from the header)" },
	{ "i915-module", 'm', "FILE", R | S | D, NULL, "i915.ko for a modular i915 (with --vmlinux)" },
	{ "kallsyms", 0, "FILE", R | S | D, NULL, "kernel symbols from a saved /proc/kallsyms" },
	{ "symfs", 0, "DIR", R | S | D, NULL, "look for user ELF and debug files under DIR first" },
	{ "offline", 0, NULL, R | S | D, NULL, "never read /proc (kallsyms, maps of processes)" },
	{ "lines", 0, NULL, R | S | D, NULL,
	  "source file and line from DWARF (user frames, kernel frames with --vmlinux)" },
	{ "no-demangle", 0, NULL, R | S | D, NULL, "keep C++ symbol names mangled" },
	{ "cache-size", 0, "MIB", R | S | D, NULL,
	  "memory budget of the symbol caches and of folded stacks (default 128)" },
	{ "format", 'F', "FMT", R | S | D, "Output",
	  "text (default), json, folded, svg, pprof, perf-script or trace-event" },
	{ "json", 'j', NULL, R | S | D, NULL, "same as --format=json" },
	{ "output", 'o', "FILE", ALL, NULL, "write to FILE instead of stdout (record: i915-stalls.data)" },
	{ "weight", 0, "W", R | S | D, NULL, "folded/svg weight: time (microseconds, default) or count" },
	{ "folded-root", 0, "R", R | S | D, NULL, "folded/svg root frame: tid (default), pid or comm" },
	{ "submitter", 0, NULL, R | S | D, NULL,
	  "1.4: the awaited request's submitter too, in folded/svg stacks, summary and diff" },
	{ "top", 0, "N", S | D, NULL, "summary, diff: user stacks shown (default 20)" },
	{ "stream", 0, NULL, R, NULL,
	  "report: print each stall as it is read, in file order, holding one record" },
	{ "no-kallsyms", 0, NULL, W, NULL, "record: do not save /proc/kallsyms" },
	{ "metric", 0, "M", D, "Diff and bisect verdict",
	  "what is compared per capture: total (default), p99 or count" },
	{ "alpha", 0, "P", D, NULL,
	  "verdict: bad only if Mann-Whitney's one-sided p is at most P (default 0.05)" },
	{ "min-growth", 0, "PCT", D, NULL,
	  "verdict: bad only if NEW grew by at least PCT percent (default 5)" },
	{ "max-lost", 0, "PCT", D, NULL,
	  "verdict: a capture that lost more than PCT percent of its stalls is unusable (default 1)" },
	{ "seed", 0, "N", D, NULL, "seed of the bootstrap intervals (default 0x1915)" },
	{ "verbose", 'v', NULL, ALL, "Other", "more diagnostics on stderr" },
	{ "quiet", 'q', NULL, ALL, NULL, "no warnings" },
	{ "help", 'h', NULL, ALL, NULL, "this help" },
	{ "version", 'V', NULL, ALL, NULL, "the version and the formats read" },
};
const size_t opt_count = ARRAY_SIZE(opt_table);

static const char usage_head[] =
"Usage: i915-stalls [COMMAND] [OPTIONS] [FILE...]\n"
"Decode and symbolize the i915 stall log (CPU waits on the GPU).\n"
"\n"
"Commands:\n"
"  report            one block per stall (default)\n"
"  summary           stalls grouped by site and by user stack, with losses\n"
"  diff OLD NEW      compare two logs per site and user stack, by growth\n"
"  diff OLD... -- NEW...\n"
"                    several captures a side; the exit status is the bisect\n"
"                    verdict (0 good, 1 bad, 125 skip, 128 abort)\n"
"  record [-o OUT]   save the log with the maps and build-ids of its processes\n"
"\n"
"FILE: a saved stall file or a record archive; default: every\n"
"/sys/kernel/debug/dri/*/i915_stalls\n";

static void usage(void)
{
	/* all of it in one buffer, written by stdout_close()'s fflush(): a
	 * write error then comes with its errno, not after an earlier
	 * buffer's failed write, which leaves only ferror() (EIO) */
	static char buf[64 << 10];
	size_t i, j;

	setvbuf(stdout, buf, _IOFBF, sizeof(buf));
	fputs(usage_head, stdout);
	for (i = 0; i < opt_count; i++) {
		const struct optdef *d = &opt_table[i];
		char l[64];
		unsigned int c;
		bool all = d->cmds == ALL;

		if (d->section)
			printf("\n%s:\n", d->section);
		snprintf(l, sizeof(l), "%c%c%s--%s%s%s", d->short_name ? '-' : ' ',
			 d->short_name ? d->short_name : ' ', d->short_name ? ", " : "  ", d->name,
			 d->arg ? "=" : "", d->arg ? d->arg : "");
		printf("  %-26s %s", l, d->help);
		if (!all) {
			fputs(" [", stdout);
			for (c = 0, j = 0; c < C_COUNT; c++)
				if (d->cmds & (1u << c))
					printf("%s%s", j++ ? "," : "", cmd_names[c]);
			fputc(']', stdout);
		}
		fputc('\n', stdout);
	}
	puts("\nExit status:");
#define EXIT_HELP(name, value, text) printf("  %-4d %s\n", value, text);
	EXIT_STATUSES(EXIT_HELP)
#undef EXIT_HELP
}

static bool parse_u64(const char *s, uint64_t *v)
{
	char *end;
	unsigned long long x;

	errno = 0;
	x = strtoull(s, &end, 0);
	if (!*s || *end || errno || *s == '-')
		return false;
	*v = x;
	return true;
}

/* A number, or a percentage with pct ("5" or "5%"), at least 0. */
static bool parse_frac(const char *s, bool pct, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	if (pct && end != s && *end == '%')
		end++;
	return end != s && !*end && !errno && *v >= 0;
}

static const struct optdef *find_long(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < opt_count; i++)
		if (strlen(opt_table[i].name) == len && !memcmp(opt_table[i].name, name, len))
			return &opt_table[i];
	return NULL;
}

/*
 * diff OLD... -- NEW...: getopt_long() drops the "--" and keeps the
 * operands in order, so NEW are the operands after it: count them.  The
 * arguments of options ("--comm --") are skipped.  -1 if there is none.
 */
static int find_dashdash(int argc, char **argv, bool *diff)
{
	int i;

	*diff = false;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--"))
			return argc - i - 1;
		if (!strcmp(a, "diff"))
			*diff = true;	/* so that a usage error is an abort */
		if (a[0] != '-' || !a[1])
			continue;
		if (a[1] == '-') {
			const char *eq = strchr(a + 2, '=');
			const struct optdef *d = find_long(a + 2, eq ? (size_t)(eq - a - 2) : strlen(a + 2));

			if (d && d->arg && !eq)
				i++;
			continue;
		}
		for (a++; *a; a++) {
			size_t k;

			for (k = 0; k < opt_count && opt_table[k].short_name != *a; k++)
				;
			if (k < opt_count && opt_table[k].arg) {
				if (!a[1])
					i++;
				break;
			}
		}
	}
	return -1;
}

/*
 * --help and -V: what they printed must have reached stdout, as coreutils'
 * close_stdout() makes sure: a write error is an error (exit 2), not 0.
 */
static int stdout_close(void)
{
	int err;

	errno = 0;
	err = (fflush(stdout) || ferror(stdout)) ? (errno ? errno : EIO) : 0;
	errno = 0;
	if (fclose(stdout) && !err)
		err = errno ? errno : EIO;
	if (err) {
		errx_("standard output: write error: %s", strerror(err));
		return EXIT_FATAL;
	}
	return EXIT_OK;
}

static int find_cmd(const char *s)
{
	int k;

	for (k = 0; k < C_COUNT; k++)
		if (!strcmp(s, cmd_names[k]))
			return k;
	return -1;
}

int opts_parse(int argc, char **argv, struct opts *o)
{
	struct option lo[ARRAY_SIZE(opt_table) + 1];
	char shorts[64];
	bool given[ARRAY_SIZE(opt_table)] = { 0 }, cmd_given = false, diff_word;
	size_t i, ns = 0;
	uint64_t v;
	int c, idx, k;

	memset(o, 0, sizeof(*o));
	o->alpha = STATS_ALPHA_DEFAULT;
	o->min_growth = STATS_MIN_GROWTH_DEFAULT;
	o->max_lost_ppm = STATS_MAX_LOST_PPM_DEFAULT;
	o->seed = STATS_SEED_DEFAULT;
	o->nnew = find_dashdash(argc, argv, &diff_word);
	o->top = 20;
	o->save_kallsyms = true;
	o->sym.k.live = o->sym.u.live = true;
	for (i = 0; i < opt_count; i++) {
		lo[i].name = opt_table[i].name;
		lo[i].has_arg = opt_table[i].arg ? required_argument : no_argument;
		lo[i].flag = NULL;
		lo[i].val = 256 + (int)i;
		if (opt_table[i].short_name) {
			shorts[ns++] = opt_table[i].short_name;
			if (opt_table[i].arg)
				shorts[ns++] = ':';
		}
	}
	memset(&lo[opt_count], 0, sizeof(lo[0]));
	shorts[ns] = 0;
	if (argc > 1 && (k = find_cmd(argv[1])) >= 0) {
		o->cmd = (enum cmd)k;
		cmd_given = true;
		argv[1] = argv[0];
		argv++;
		argc--;
	}
	opterr = 0;
	while ((c = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
		const char *a = optarg;

		if (c == '?') {
			if (optopt)
				errx_("unknown option -%c", optopt);
			else
				errx_("unknown option %s", argv[optind - 1]);
			goto usage;
		}
		if (c == ':')
			goto usage;
		if (c < 256) {
			for (i = 0; i < opt_count && opt_table[i].short_name != c; i++)
				;
			idx = (int)i;
		} else {
			idx = c - 256;
		}
		given[idx] = true;
		switch (opt_table[idx].short_name ? opt_table[idx].short_name : idx + 256) {
		case 'i':
			o->inputs = xreallocarray(o->inputs, o->ninputs + 1, sizeof(*o->inputs));
			o->inputs[o->ninputs++] = optarg;
			continue;
		case 'F':
			if (!strcmp(a, "text")) o->fmt = F_TEXT;
			else if (!strcmp(a, "json")) o->fmt = F_JSON;
			else if (!strcmp(a, "folded")) o->fmt = F_FOLDED;
			else if (!strcmp(a, "svg")) o->fmt = F_SVG;
			else if (!strcmp(a, "pprof")) o->fmt = F_PPROF;
			else if (!strcmp(a, "perf-script")) o->fmt = F_PERF_SCRIPT;
			else if (!strcmp(a, "trace-event")) o->fmt = F_TRACE;
			else goto bad;
			continue;
		case 'j': o->fmt = F_JSON; continue;
		case 'o': o->out_path = a; continue;
		case 'k': o->sym.k.vmlinux = a; continue;
		case 'm': o->sym.k.module = a; continue;
		case 'v': verbose++; continue;
		case 'q': quiet = true; continue;
		case 'h':
			usage();
			return stdout_close();
		case 'V':
			printf("i915-stalls %s (stall format %u.0 to %u.%u, archive format 1.1)\n",
			       VERSION, I915_STALL_VERSION_MAJOR, I915_STALL_VERSION_MAJOR,
			       FMT_MINOR_KNOWN);
			return stdout_close();
		}
		/* long-only options, by name */
		{
			const char *n = opt_table[idx].name;

			if (!strcmp(n, "kallsyms")) {
				o->sym.k.kallsyms = a;
			} else if (!strcmp(n, "symfs")) {
				o->sym.u.symfs = a;
			} else if (!strcmp(n, "offline")) {
				o->sym.k.live = o->sym.u.live = false;
			} else if (!strcmp(n, "lines")) {
				o->sym.k.lines = o->sym.u.lines = true;
			} else if (!strcmp(n, "no-demangle")) {
				o->sym.u.no_demangle = true;
			} else if (!strcmp(n, "cache-size")) {
				if (!parse_u64(a, &v) || !v || v > (1u << 20))
					goto bad;
				o->sym.budget = (size_t)v << 20;
			} else if (!strcmp(n, "pid") || !strcmp(n, "tid")) {
				if (!parse_u64(a, &v) || v > UINT32_MAX)
					goto bad;
				if (n[0] == 'p') {
					o->F.pids = xreallocarray(o->F.pids, o->F.npids + 1, sizeof(*o->F.pids));
					o->F.pids[o->F.npids++] = (uint32_t)v;
				} else {
					o->F.tids = xreallocarray(o->F.tids, o->F.ntids + 1, sizeof(*o->F.tids));
					o->F.tids[o->F.ntids++] = (uint32_t)v;
				}
			} else if (!strcmp(n, "comm")) {
				o->F.comms = xreallocarray(o->F.comms, o->F.ncomms + 1, sizeof(*o->F.comms));
				o->F.comms[o->F.ncomms++] = optarg;
			} else if (!strcmp(n, "site")) {
				int s = site_parse(a);

				if (s < 0)
					goto bad;
				o->F.sites = xreallocarray(o->F.sites, o->F.nsites + 1, sizeof(*o->F.sites));
				o->F.sites[o->F.nsites++] = s;
			} else if (!strcmp(n, "min-us")) {
				if (!parse_u64(a, &v) || v > UINT64_MAX / 1000)
					goto bad;
				o->F.min_ns = v * 1000;
			} else if (!strcmp(n, "weight")) {
				if (!strcmp(a, "time")) o->weight = W_TIME;
				else if (!strcmp(a, "count")) o->weight = W_COUNT;
				else goto bad;
			} else if (!strcmp(n, "folded-root")) {
				if (!strcmp(a, "tid")) o->root = ROOT_TID;
				else if (!strcmp(a, "pid")) o->root = ROOT_PID;
				else if (!strcmp(a, "comm")) o->root = ROOT_COMM;
				else goto bad;
			} else if (!strcmp(n, "submitter")) {
				o->submitter = true;
			} else if (!strcmp(n, "top")) {
				if (!parse_u64(a, &v) || !v || v > 1000000)
					goto bad;
				o->top = (size_t)v;
			} else if (!strcmp(n, "stream")) {
				o->stream = true;
			} else if (!strcmp(n, "alpha")) {
				if (!parse_frac(a, false, &o->alpha) || !(o->alpha > 0 && o->alpha < 1))
					goto bad;
				o->verdict = true;
			} else if (!strcmp(n, "min-growth")) {
				if (!parse_frac(a, true, &o->min_growth) || o->min_growth > 1e10)
					goto bad;
				o->min_growth /= 100;
				o->verdict = true;
			} else if (!strcmp(n, "max-lost")) {
				double pct;

				if (!parse_frac(a, true, &pct) || pct > 100)
					goto bad;
				o->max_lost_ppm = (uint32_t)(pct * 10000 + 0.5);
				o->verdict = true;
			} else if (!strcmp(n, "seed")) {
				if (!parse_u64(a, &o->seed))
					goto bad;
			} else if (!strcmp(n, "metric")) {
				if (!strcmp(a, "total")) o->metric = M_TOTAL;
				else if (!strcmp(a, "p99")) o->metric = M_P99;
				else if (!strcmp(a, "count")) o->metric = M_COUNT;
				else goto bad;
			} else if (!strcmp(n, "no-kallsyms")) {
				o->save_kallsyms = false;
			}
		}
	}
	if (!cmd_given && optind < argc && (k = find_cmd(argv[optind])) >= 0) {
		/* the command may follow options, as in "-F json summary" */
		o->cmd = (enum cmd)k;
		optind++;
	}
	for (; optind < argc; optind++) {
		o->inputs = xreallocarray(o->inputs, o->ninputs + 1, sizeof(*o->inputs));
		o->inputs[o->ninputs++] = argv[optind];
	}
	for (i = 0; i < opt_count; i++)
		if (given[i] && !(opt_table[i].cmds & (1u << o->cmd))) {
			errx_("--%s is not an option of %s", opt_table[i].name, cmd_names[o->cmd]);
			goto usage;
		}
	if (o->cmd == C_DIFF && o->nnew >= 0) {
		o->verdict = true;
		if ((size_t)o->nnew > o->ninputs || !o->nnew || (size_t)o->nnew == o->ninputs) {
			errx_("diff OLD... -- NEW...: at least one capture on each side");
			goto usage;
		}
		/* getopt_long() keeps a second "--" as an operand: a usage
		 * error (abort), not a NEW capture that cannot be read (skip) */
		for (i = 0; i < o->ninputs; i++)
			if (!strcmp(o->inputs[i], "--")) {
				errx_("diff OLD... -- NEW...: a second '--'");
				goto usage;
			}
	}
	/* the formats of other tools (export.h): stalls, not groups or a diff */
	if ((o->fmt == F_PPROF && o->cmd != C_REPORT && o->cmd != C_SUMMARY) ||
	    ((o->fmt == F_PERF_SCRIPT || o->fmt == F_TRACE) && o->cmd != C_REPORT)) {
		errx_("-F %s is for report%s", o->fmt == F_PPROF ? "pprof" : o->fmt == F_TRACE ?
		      "trace-event" : "perf-script", o->fmt == F_PPROF ? " and summary" : "");
		goto usage;
	}
	if (o->stream && o->fmt != F_TEXT) {
		errx_("--stream is for the text report");
		goto usage;
	}
	return -1;
bad:
	errx_("invalid value '%s' for --%s", optarg, opt_table[idx].name);
usage:
	fprintf(stderr, "Try 'i915-stalls --help'.\n");
	/* a bisect step: git bisect run must stop, not skip or go on */
	return (o->cmd == C_DIFF || diff_word) && (o->verdict || o->nnew >= 0) ?
		EXIT_BISECT_ABORT : EXIT_USAGE;
}

void opts_free(struct opts *o)
{
	free(o->inputs);
	filter_free(&o->F);
}

/*
 * Every dri/N/i915_stalls, once: dri/N is a symlink to the device's own
 * directory, which the glob also finds, so keep one path per file.
 */
int opts_default_inputs(struct opts *o)
{
	static glob_t g;
	size_t i, j, kept = 0;

	if (glob("/sys/kernel/debug/dri/*/i915_stalls", 0, NULL, &g) || !g.gl_pathc) {
		errx_("no /sys/kernel/debug/dri/*/i915_stalls (debugfs not mounted, not root, "
		      "or a kernel without CONFIG_DRM_I915_STALL_LOG); give a FILE");
		return EXIT_FATAL;
	}
	for (i = 0; i < g.gl_pathc; i++) {
		struct stat st, prev;
		bool dup = false;

		if (stat(g.gl_pathv[i], &st) == 0)
			for (j = 0; j < kept && !dup; j++)
				dup = stat(g.gl_pathv[j], &prev) == 0 &&
				      prev.st_dev == st.st_dev && prev.st_ino == st.st_ino;
		if (!dup)
			g.gl_pathv[kept++] = g.gl_pathv[i];
	}
	o->inputs = xreallocarray(o->inputs, kept, sizeof(*o->inputs));
	memcpy(o->inputs, g.gl_pathv, kept * sizeof(*o->inputs));
	o->ninputs = kept;
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * i915-stalls: the command line.  One table of options: getopt_long()'s
 * table, --help and the man page test (tests/mancheck.c) all come from it,
 * and it says which commands take each option.
 */
#ifndef I915_STALLS_OPTIONS_H
#define I915_STALLS_OPTIONS_H

#include "aggregate.h"
#include "emit.h"
#include "session.h"
#include "stats.h"
#include "symbolize.h"

enum cmd { C_REPORT, C_SUMMARY, C_DIFF, C_RECORD, C_COUNT };
extern const char *const cmd_names[C_COUNT];

enum fmt { F_TEXT, F_JSON, F_FOLDED, F_SVG, F_PPROF, F_PERF_SCRIPT, F_TRACE };
enum weight { W_TIME, W_COUNT };

struct opts {
	enum cmd cmd;
	char **inputs;
	size_t ninputs;
	struct filter F;
	struct sym_opts sym;
	enum fmt fmt;
	const char *out_path;
	enum weight weight;
	enum fold_root root;
	bool submitter;		/* 1.4: the submitter too (folded, svg, summary, diff) */
	size_t top;
	bool stream;
	enum metric metric;
	/* diff: the verdict ("--" given, or one of its options) and its settings */
	bool verdict;
	int nnew;		/* operands after "--" (NEW), -1 without "--" */
	double alpha, min_growth;	/* min_growth: a fraction */
	uint32_t max_lost_ppm;
	uint64_t seed;
	bool save_kallsyms;
};

struct optdef {
	const char *name;	/* long name */
	char short_name;	/* or 0 */
	const char *arg;	/* argument's name, NULL if none */
	unsigned int cmds;	/* bit per enum cmd */
	const char *section;	/* --help heading, when it starts one */
	const char *help;
};
extern const struct optdef opt_table[];
extern const size_t opt_count;

/* Parse argv into o.  Returns -1 to go on, else the exit status (help,
 * version, usage error: 64, or 128 for a diff verdict). */
int opts_parse(int argc, char **argv, struct opts *o);
void opts_free(struct opts *o);
/* No FILE given: every /sys/kernel/debug/dri/N/i915_stalls, once.  0 or
 * the exit status after a message. */
int opts_default_inputs(struct opts *o);

/* The commands (cmd-*.c), as perf's builtin-*.c. */
int cmd_report(struct opts *o);
int cmd_summary(struct opts *o);
int cmd_diff(struct opts *o);
int cmd_record(struct opts *o);

#endif

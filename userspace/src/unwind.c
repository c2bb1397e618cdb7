// SPDX-License-Identifier: MIT
/*
 * The unwinder: a 1.2 record's stack snapshot unwound with CFI, on the
 * address space's Dwfl (dwfl.c opens it and reports its modules), by
 * libdw's dwfl_getthread_frames() or, for most records, by the same steps
 * over rules cached per address space.
 */
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>

#include "unwind.h"
#include "usym.h"

static struct {
	bool libdw_unwind;	/* I915_STALLS_UNWIND=libdw: no rule cache */
	unsigned long unw_fast, unw_libdw, rules_hit, rules_miss;
} D;

static void unwind_space_close(struct aspace *as);

void unwind_init(void)
{
	dwfl_on_close(unwind_space_close);
	D.libdw_unwind = getenv("I915_STALLS_UNWIND") &&
			 !strcmp(getenv("I915_STALLS_UNWIND"), "libdw");
}

void unwind_end(void)
{
	if (D.unw_fast || D.unw_libdw)
		infox("CFI unwinds: %lu from the rule cache, %lu by libdw; rules: %lu hits, "
		      "%lu from libdw", D.unw_fast, D.unw_libdw, D.rules_hit, D.rules_miss);
	memset(&D, 0, sizeof(D));
}

/*
 * The snapshot unwound with CFI, as perf's util/unwind-libdw.c does: the
 * space's Dwfl gets a thread state whose memory is the snapshot alone
 * (user_sp up, ustack_size bytes; reads elsewhere fail) and whose initial
 * registers are the recorded rip, rsp and rbp (DWARF 16, 7, 6); then
 * dwfl_getthread_frames().  No frame is taken that CFI did not give: a
 * frame whose PC no CFI covers ends the walk before libdw's own fallback
 * (the frame-pointer unwinder of its x86_64 backend) could guess, and a
 * frame whose stack pointer is not the CFA its callee's CFI rule gives
 * (register + offset, the rule of all but hand-written code) is refused:
 * libdw made it some other way.
 */
static struct {
	const struct srec *r;
	struct aspace *as;
	struct ucfi *out;
	bool oob;		/* a read outside the snapshot (reset per frame) */
	bool stopped;		/* out->end is set */
	bool last_oob;		/* the step from the last frame read outside the snapshot */
	bool have_cfa;		/* the last frame's CFA, from its CFI rule */
	uint64_t cfa;
} U;

static pid_t unw_next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	(void)dwfl;
	(void)arg;
	if (*thread_argp)
		return 0;
	*thread_argp = &U;
	return U.r->pid ? (pid_t)U.r->pid : 1;
}

static bool unw_get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	(void)dwfl;
	(void)tid;
	(void)arg;
	*thread_argp = &U;
	return true;
}

/* The word at addr in r's snapshot, if it lies there. */
static inline bool snap_read(const struct srec *r, uint64_t addr, uint64_t *result)
{
	if (r->snap_size < 8 || addr < r->user_sp || addr - r->user_sp > r->snap_size - 8)
		return false;
	memcpy(result, r->snap + (addr - r->user_sp), 8);
	return true;
}

static bool unw_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	uint64_t v;

	(void)dwfl;
	(void)arg;
	if (!snap_read(U.r, addr, &v)) {
		U.oob = true;
		return false;
	}
	*result = v;
	return true;
}

static bool unw_set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	Dwarf_Word regs[2] = { U.r->user_bp, U.r->user_sp };	/* DWARF 6 rbp, 7 rsp */

	(void)arg;
	if (!dwfl_thread_state_registers(thread, 6, 2, regs))
		return false;
	dwfl_thread_state_register_pc(thread, U.r->user_ip);
	return true;
}

static const Dwfl_Thread_Callbacks unw_callbacks = {
	.next_thread = unw_next_thread,
	.get_thread = unw_get_thread,
	.memory_read = unw_memory_read,
	.set_initial_registers = unw_set_initial_registers,
};

/*
 * Whether the module's .eh_frame (eh) or DWARF CFI covers address a of
 * the frame state; if so, the CFA its rule gives when that is a register
 * plus an offset (U.cfa).
 */
static bool cfi_covers(Dwfl_Frame *state, Dwfl_Module *mod, bool eh, Dwarf_Addr a)
{
	Dwarf_Addr bias = 0;
	Dwarf_CFI *cfi = eh ? dwfl_module_eh_cfi(mod, &bias) : dwfl_module_dwarf_cfi(mod, &bias);
	Dwarf_Frame *fr = NULL;
	Dwarf_Op *ops;
	size_t nops;
	Dwarf_Word v;

	if (!cfi || dwarf_cfi_addrframe(cfi, a - bias, &fr))
		return false;
	U.have_cfa = false;
	if (!dwarf_frame_cfa(fr, &ops, &nops) && nops == 1) {
		unsigned int reg = ops[0].atom == DW_OP_bregx ? (unsigned int)ops[0].number :
				   ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31 ?
				   (unsigned int)(ops[0].atom - DW_OP_breg0) : ~0u;
		Dwarf_Word off = ops[0].atom == DW_OP_bregx ? ops[0].number2 : ops[0].number;

		if (reg != ~0u && !dwfl_frame_reg(state, reg, &v)) {
			U.cfa = v + off;
			U.have_cfa = true;
		}
	}
	free(fr);
	return true;
}

/* Whether the frame at pc (a return address unless activation) can be
 * unwound by CFI; else why not, in U.out. */
static bool unw_can_step(Dwfl_Frame *state, Dwarf_Addr pc, bool activation)
{
	Dwarf_Addr a = pc - (activation || !pc ? 0 : 1);
	Dwfl_Module *mod = dwfl_addrmodule(dwfl_thread_dwfl(dwfl_frame_thread(state)), a);

	U.have_cfa = false;
	if (mod && (cfi_covers(state, mod, true, a) || cfi_covers(state, mod, false, a)))
		return true;
	U.out->end = mod || maps_find(&U.as->pm, a) ? UEND_NO_CFI : UEND_NO_MAP;
	U.out->end_addr = pc;
	U.stopped = true;
	return false;
}

/*
 * Each frame as libdw gives it.  dwfl_frame_pc() asked for isactivation
 * unwinds the frame first (to see whether its caller is a signal frame),
 * so the reads of the step from this frame to the next happen in it:
 * U.oob says after it whether that step read outside the snapshot.
 */
static int unw_frame(Dwfl_Frame *state, void *arg)
{
	struct ucfi *o = U.out;
	Dwarf_Addr pc;
	Dwarf_Word sp = 0;
	bool act, step_oob;

	(void)arg;
	U.oob = false;
	if (!dwfl_frame_pc(state, &pc, &act)) {
		o->end = UEND_ERROR;
		o->end_addr = o->n ? o->pc[o->n - 1] : U.r->user_ip;
		U.stopped = true;
		return DWARF_CB_ABORT;
	}
	step_oob = U.oob;
	if (dwfl_frame_reg(state, 7, &sp))
		sp = o->n ? 0 : U.r->user_sp;
	if (o->n && U.have_cfa && sp != U.cfa) {
		/* not what the CFI rule gives: libdw's fallback made it */
		o->end = U.last_oob ? UEND_SNAPSHOT : UEND_ERROR;
		o->end_addr = o->pc[o->n - 1];
		U.stopped = true;
		return DWARF_CB_ABORT;
	}
	if (o->n == USTACK_CFI_MAX) {
		o->end = UEND_DEPTH;
		o->end_addr = pc;
		U.stopped = true;
		return DWARF_CB_ABORT;
	}
	o->pc[o->n] = pc;
	o->sp[o->n] = sp;
	o->activation[o->n] = act;
	o->n++;
	U.last_oob = step_oob;
	if (!unw_can_step(state, pc, act))
		return DWARF_CB_ABORT;
	return DWARF_CB_OK;
}

/*
 * The same walk from rules cached per address space: what libdw's CFI says at each lookup address (the PC of the
 * first frame, the return address - 1 of the others) is asked once per
 * Dwfl, as dwarf_cfi_addrframe(), dwarf_frame_cfa() and
 * dwarf_frame_register() give it, and each record is then unwound by
 * reading its snapshot, with the steps of elfutils 0.188's
 * __libdwfl_frame_unwind() and handle_cfi() for the x86_64 backend (17
 * registers, rip the return address register, no address mask, no
 * return address offset) and expr_eval() for the rules compilers emit:
 * undefined, same value, offset(N), val_offset(N), register(R), the CFA a
 * register plus an offset.  Every register is unwound, so that the reads
 * outside the snapshot, which decide the end reasons, are libdw's.  A
 * rule outside that set (an expression, a signal frame's CIE, another
 * return address register) sends the record to dwfl_getthread_frames():
 * so the frames, their stack pointers and the end are the same either way
 * (I915_STALLS_UNWIND=libdw unwinds every record with libdw, to compare;
 * tests/format12.sh does).
 */
#define UNW_NREGS 17		/* x86_64: ebl_frame_nregs() */
#define CFI_CACHE_MAX 4096	/* rules per space; then the cache starts again */

enum { CE_EMPTY, CE_RULES, CE_STOP, CE_SLOW };
enum { RR_UNDEF, RR_SAME, RR_OFF, RR_VALOFF, RR_REG };

/* A register's rule other than undefined and same value. */
struct cfi_rule {
	uint8_t reg;
	uint8_t rule;		/* RR_OFF, RR_VALOFF, RR_REG */
	int32_t arg;		/* the offset, or RR_REG's register */
};

/*
 * The rules at one lookup address, as a step uses them: the registers
 * whose rule is same value as a mask; the offset(N) rules, then the
 * val_offset(N) ones, then the register(R) ones, in a list; a register in
 * neither is undefined (most of the 17 are, at most call sites).  The
 * offset rules' registers as a mask, and the lowest and highest N, so
 * that a step checks once that all their reads lie in the snapshot.
 */
struct cfi_ent {
	uint64_t a;		/* the lookup address */
	uint8_t kind;		/* CE_*; CE_STOP: no CFI covers a */
	uint8_t end;		/* CE_STOP: UEND_NO_CFI or UEND_NO_MAP */
	uint8_t cfa_reg;	/* the CFA is cfa_reg + cfa_off */
	uint8_t nrules, noff, nvaloff;	/* rules: noff, nvaloff, then register(R) */
	int32_t cfa_off;
	uint32_t same;		/* bit i: register i's rule is same value */
	uint32_t off_regs, valoff_regs;	/* the offset and val_offset rules' registers */
	int32_t off_min, off_max;	/* their N, if noff */
	struct cfi_rule rules[UNW_NREGS];
};

/* v as an entry's offset, if it fits */
static bool put_off(uint64_t v, int32_t *off)
{
	*off = (int32_t)(int64_t)v;
	return (int64_t)*off == (int64_t)v;
}

struct cfi_cache {
	struct cfi_ent *t;
	size_t n, cap;
};

static void cfi_cache_free(struct aspace *as)
{
	if (as->cfi) {
		free(as->cfi->t);
		free(as->cfi);
		as->cfi = NULL;
	}
}

/* A space's Dwfl is closed (dwfl_on_close()): forget what was attached
 * and cached on it. */
static void unwind_space_close(struct aspace *as)
{
	as->attached = false;
	as->cfi_fast = 0;
	cfi_cache_free(as);
}

/* One register's rule as handle_cfi() evaluates it; false: not expressible. */
static bool reg_rule(Dwarf_Frame *fr, int regno, uint8_t *rule, int32_t *arg)
{
	Dwarf_Op mem[3], *ops;
	size_t nops;

	if (dwarf_frame_register(fr, regno, mem, &ops, &nops))
		return false;
	*arg = 0;
	if (nops == 0) {
		if (ops == mem)
			*rule = RR_UNDEF;
		else if (!ops)
			*rule = RR_SAME;
		else
			return false;
		return true;
	}
	if (nops == 1 && (ops[0].atom == DW_OP_regx ||
			  (ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31))) {
		uint64_t reg = ops[0].atom == DW_OP_regx ? ops[0].number :
			       (uint64_t)(ops[0].atom - DW_OP_reg0);

		*arg = (int32_t)reg;
		*rule = RR_REG;
		return reg < UNW_NREGS;
	}
	if (ops[0].atom != DW_OP_call_frame_cfa)
		return false;
	*rule = RR_OFF;
	ops++;
	nops--;
	if (nops && ops[0].atom == DW_OP_plus_uconst) {
		if (!put_off(ops[0].number, arg))
			return false;
		ops++;
		nops--;
	}
	if (nops && ops[0].atom == DW_OP_stack_value) {
		*rule = RR_VALOFF;
		ops++;
		nops--;
	}
	return nops == 0;
}

/* The rules of one Dwarf_Frame, or CE_SLOW. */
static void frame_rules(Dwarf_Frame *fr, struct cfi_ent *e)
{
	Dwarf_Op *ops;
	size_t nops;
	bool signal = false;
	int ra = dwarf_frame_info(fr, NULL, NULL, &signal), i, k;
	static const uint8_t order[3] = { RR_OFF, RR_VALOFF, RR_REG };
	struct cfi_rule kind[UNW_NREGS];
	unsigned int n = 0;
	uint64_t reg, off;

	e->kind = CE_SLOW;
	if (ra != UNW_NREGS - 1 || signal || dwarf_frame_cfa(fr, &ops, &nops) || nops != 1)
		return;
	if (ops[0].atom == DW_OP_bregx) {
		reg = ops[0].number;
		off = ops[0].number2;
	} else if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
		reg = ops[0].atom - DW_OP_breg0;
		off = ops[0].number;
	} else {
		return;
	}
	if (reg >= UNW_NREGS || !put_off(off, &e->cfa_off))
		return;
	e->cfa_reg = (uint8_t)reg;
	for (i = 0; i < UNW_NREGS; i++) {
		uint8_t rule;
		int32_t arg;

		if (!reg_rule(fr, i, &rule, &arg))
			return;
		if (rule == RR_SAME)
			e->same |= 1u << i;
		else if (rule != RR_UNDEF)
			kind[n++] = (struct cfi_rule){ (uint8_t)i, rule, arg };
	}
	/* the list by rule: offset, val_offset, register */
	for (k = 0; k < 3; k++)
		for (i = 0; i < (int)n; i++) {
			const struct cfi_rule *q = &kind[i];

			if (q->rule != order[k])
				continue;
			e->rules[e->nrules++] = *q;
			if (q->rule == RR_OFF) {
				if (!e->noff++ || q->arg < e->off_min)
					e->off_min = q->arg;
				if (e->noff == 1 || q->arg > e->off_max)
					e->off_max = q->arg;
				e->off_regs |= 1u << q->reg;
			} else if (q->rule == RR_VALOFF) {
				e->nvaloff++;
				e->valoff_regs |= 1u << q->reg;
			}
		}
	e->kind = CE_RULES;
}

/* What libdw's CFI says at lookup address a: unw_can_step()'s and
 * __libdwfl_frame_unwind()'s lookup (the module, its .eh_frame, then its
 * DWARF CFI). */
static void cfi_lookup(struct aspace *as, Dwfl *dwfl, uint64_t a, struct cfi_ent *e)
{
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, a);
	int k;

	memset(e, 0, sizeof(*e));
	e->a = a;
	for (k = 0; mod && k < 2; k++) {
		Dwarf_Addr bias = 0;
		Dwarf_CFI *cfi = k ? dwfl_module_dwarf_cfi(mod, &bias) : dwfl_module_eh_cfi(mod, &bias);
		Dwarf_Frame *fr = NULL;

		if (cfi && !dwarf_cfi_addrframe(cfi, a - bias, &fr)) {
			frame_rules(fr, e);
			free(fr);
			return;
		}
	}
	e->kind = CE_STOP;
	e->end = mod || maps_find(&as->pm, a) ? UEND_NO_CFI : UEND_NO_MAP;
}

static const struct cfi_ent *cfi_get(struct aspace *as, Dwfl *dwfl, uint64_t a)
{
	struct cfi_cache *c = as->cfi;
	size_t i;

	if (!c)
		c = as->cfi = xcalloc(1, sizeof(*c));
	if (c->cap)
		for (i = hash_mix(0xcf1, a) & (c->cap - 1); c->t[i].kind != CE_EMPTY;
		     i = (i + 1) & (c->cap - 1))
			if (c->t[i].a == a) {
				D.rules_hit++;
				return &c->t[i];
			}
	D.rules_miss++;
	if (c->n >= CFI_CACHE_MAX) {	/* start again */
		memset(c->t, 0, c->cap * sizeof(*c->t));
		c->n = 0;
	}
	if ((c->n + 1) * 2 > c->cap) {
		struct cfi_cache old = *c;

		c->cap = c->cap ? c->cap * 2 : 64;
		c->t = xcalloc(c->cap, sizeof(*c->t));
		for (i = 0; i < old.cap; i++)
			if (old.t[i].kind != CE_EMPTY) {
				size_t j = hash_mix(0xcf1, old.t[i].a) & (c->cap - 1);

				while (c->t[j].kind != CE_EMPTY)
					j = (j + 1) & (c->cap - 1);
				c->t[j] = old.t[i];
			}
		free(old.t);
	}
	for (i = hash_mix(0xcf1, a) & (c->cap - 1); c->t[i].kind != CE_EMPTY; i = (i + 1) & (c->cap - 1))
		;
	cfi_lookup(as, dwfl, a, &c->t[i]);
	c->n++;
	return &c->t[i];
}

/* A register state: values and which are known. */
struct ustate {
	uint64_t reg[UNW_NREGS];
	uint32_t set;
	uint64_t pc;
	bool has_pc;		/* DWFL_FRAME_STATE_PC_SET */
};

#define HAS(st, r) (((st)->set >> (r)) & 1)

/* Whether the words at addr + lo and addr + hi (lo <= hi), and so all
 * between, lie in r's snapshot: snap_read() would read them all. */
static inline bool snap_holds(const struct srec *r, uint64_t addr, int32_t lo, int32_t hi)
{
	uint64_t a = addr + (uint64_t)(int64_t)lo, b = addr + (uint64_t)(int64_t)hi;

	return r->snap_size >= 8 && a <= b && a >= r->user_sp &&
	       b - r->user_sp <= r->snap_size - 8;
}

/*
 * The register(R) rules of e (rare: hand-written code) applied to s, from
 * the callee's values; the registers they set.  Before the other rules
 * are, which set other registers only.
 */
static __attribute__((noinline)) uint32_t reg_rules(const struct cfi_ent *e, struct ustate *s)
{
	const struct cfi_rule *q = e->rules + e->noff + e->nvaloff, *end = e->rules + e->nrules;
	uint64_t old[UNW_NREGS];
	uint32_t set = 0;

	memcpy(old, s->reg, sizeof(old));
	for (; q < end; q++)
		if ((s->set >> q->arg) & 1) {
			s->reg[q->reg] = old[q->arg];
			set |= 1u << q->reg;
		}
	return set;
}

/*
 * handle_cfi(): s becomes its caller's state by e's rules (in place: the
 * same-value registers stay, the undefined ones go); whether a read fell
 * outside the snapshot.  The offset rules' reads are checked against the
 * snapshot once when all lie in it (a register's rule at a call site
 * saves it near the CFA), one by one otherwise.
 */
static bool rules_step(const struct cfi_ent *e, const struct srec *r, struct ustate *s)
{
	bool cfa_ok = HAS(s, e->cfa_reg), oob = false;
	uint64_t cfa = s->reg[e->cfa_reg] + (uint64_t)(int64_t)e->cfa_off, v;
	uint32_t set = s->set & e->same;
	const struct cfi_rule *q = e->rules, *qe;

	if (e->nrules > e->noff + e->nvaloff)
		set |= reg_rules(e, s);	/* before the others change the callee's values */
	if (cfa_ok) {
		qe = q + e->noff;
		if (e->noff && snap_holds(r, cfa, e->off_min, e->off_max)) {
			for (; q < qe; q++)
				memcpy(&s->reg[q->reg],
				       r->snap + (cfa + (uint64_t)(int64_t)q->arg - r->user_sp), 8);
			set |= e->off_regs;
		} else {
			for (; q < qe; q++) {
				if (!snap_read(r, cfa + (uint64_t)(int64_t)q->arg, &v)) {
					oob = true;
					continue;
				}
				s->reg[q->reg] = v;
				set |= 1u << q->reg;
			}
		}
		for (qe += e->nvaloff; q < qe; q++)
			s->reg[q->reg] = cfa + (uint64_t)(int64_t)q->arg;
		set |= e->valoff_regs;
	}	/* else no CFA: those registers are undefined */
	/* rip undefined: no PC, as libdw's PC_UNDEFINED */
	s->set = set;
	s->has_pc = HAS(s, UNW_NREGS - 1) && s->reg[UNW_NREGS - 1];
	if (s->has_pc)
		s->pc = s->reg[UNW_NREGS - 1];
	return oob;
}

/*
 * unw_frame(), unw_can_step() and dwfl_getthread_frames() over cached
 * rules; false (out unspecified) when a rule needs libdw.  One register
 * state, stepped in place: what a frame's checks need of its own state
 * (its stack pointer, its CFA) is taken before it becomes its caller's.
 */
static bool cached_unwind(struct aspace *as, Dwfl *dwfl, const struct srec *r, struct ucfi *o)
{
	struct ustate s = { 0 };
	const struct cfi_ent *e = NULL;
	bool initial = true, have_cfa = false, last_oob = false, own_have_cfa = false;
	uint64_t cfa = 0, own_cfa = 0;

	s.set = 1u << 6 | 1u << 7;
	s.reg[6] = r->user_bp;
	s.reg[7] = r->user_sp;
	s.pc = r->user_ip;
	for (;;) {
		bool act = initial, step_oob = false;
		uint64_t pc = s.pc, sp = HAS(&s, 7) ? s.reg[7] : o->n ? 0 : r->user_sp;

		if (!initial) {
			/* dwfl_frame_pc(isactivation) unwinds this frame first */
			e = cfi_get(as, dwfl, pc - 1);
			if (e->kind == CE_SLOW)
				return false;
			if (e->kind == CE_RULES) {
				own_have_cfa = HAS(&s, e->cfa_reg);
				own_cfa = s.reg[e->cfa_reg] + (uint64_t)(int64_t)e->cfa_off;
				step_oob = rules_step(e, r, &s);
			}
		}
		if (o->n && have_cfa && sp != cfa) {
			o->end = last_oob ? UEND_SNAPSHOT : UEND_ERROR;
			o->end_addr = o->pc[o->n - 1];
			return true;
		}
		if (o->n == USTACK_CFI_MAX) {
			o->end = UEND_DEPTH;
			o->end_addr = pc;
			return true;
		}
		o->pc[o->n] = pc;
		o->sp[o->n] = sp;
		o->activation[o->n] = act;
		o->n++;
		last_oob = step_oob;
		if (initial) {
			e = cfi_get(as, dwfl, pc);
			if (e->kind == CE_SLOW)
				return false;
		}
		if (e->kind == CE_STOP) {
			o->end = e->end;
			o->end_addr = pc;
			return true;
		}
		if (initial) {
			have_cfa = HAS(&s, e->cfa_reg);
			cfa = s.reg[e->cfa_reg] + (uint64_t)(int64_t)e->cfa_off;
			rules_step(e, r, &s);	/* its reads are not looked at */
		} else {
			have_cfa = own_have_cfa;
			cfa = own_cfa;
		}
		if (!s.has_pc) {
			/* PC undefined: dwfl_getthread_frames() returns 0 */
			if (last_oob) {
				o->end = UEND_SNAPSHOT;
				o->end_addr = o->pc[o->n - 1];
			} else {
				o->end = UEND_NONE;
			}
			return true;
		}
		initial = false;
	}
}

/* Whether every module libdw may take its backend from is x86_64's, the
 * machine the rules above are for. */
static bool space_x86_64(struct aspace *as)
{
	size_t i;

	for (i = 0; i < as->nmods; i++) {
		GElf_Addr bias;
		GElf_Ehdr eh;
		Elf *elf;

		if (as->mods[i].state <= 0)
			continue;
		elf = dwfl_module_getelf(as->mods[i].mod, &bias);
		if (!elf || !gelf_getehdr(elf, &eh) || eh.e_machine != EM_X86_64 ||
		    eh.e_ident[EI_CLASS] != ELFCLASS64)
			return false;
	}
	return true;
}

/* No frames yet (pc[], sp[] and activation[] are read up to n only). */
static void ucfi_clear(struct ucfi *out, const struct srec *r)
{
	out->n = 0;
	out->end = UEND_NONE;
	out->end_addr = r->user_ip;
}

void unwind_snapshot(struct aspace *as, const struct srec *r, struct ucfi *out)
{
	Dwfl *dwfl;
	int rc;

	ucfi_clear(out, r);
	if (as->reason) {
		out->end = UEND_NO_MAP;
		return;
	}
	dwfl = dwfl_space_all(as);
	if (!dwfl) {
		out->end = UEND_ERROR;
		return;
	}
	if (!as->attached) {
		if (!dwfl_attach_state(dwfl, NULL, r->tgid ? (pid_t)r->tgid : 1, &unw_callbacks,
				       NULL)) {
			infox("tgid %u: no thread state: %s", r->tgid, dwfl_errmsg(-1));
			out->end = maps_find(&as->pm, r->user_ip) ? UEND_NO_CFI : UEND_NO_MAP;
			return;
		}
		as->attached = true;
	}
	if (!as->cfi_fast)
		as->cfi_fast = space_x86_64(as) ? 1 : -1;
	if (as->cfi_fast > 0 && !D.libdw_unwind) {
		if (cached_unwind(as, dwfl, r, out)) {
			D.unw_fast++;
			return;
		}
		ucfi_clear(out, r);
	}
	D.unw_libdw++;
	U.r = r;
	U.as = as;
	U.out = out;
	U.oob = false;
	U.stopped = false;
	rc = dwfl_getthread_frames(dwfl, r->pid ? (pid_t)r->pid : 1, unw_frame, NULL);
	if (!U.stopped) {
		/* libdw ends without an error when a read failed: a read
		 * outside the snapshot since the last frame is its end */
		if (rc == 0 && !U.last_oob) {
			out->end = UEND_NONE;
		} else {
			out->end = U.last_oob ? UEND_SNAPSHOT : UEND_ERROR;
			out->end_addr = out->n ? out->pc[out->n - 1] : r->user_ip;
			if (!U.last_oob)
				infox("tgid %u: unwinding stopped at 0x%llx: %s", r->tgid,
				      (unsigned long long)out->end_addr, dwfl_errmsg(-1));
		}
	}
	memset(&U, 0, sizeof(U));
}

const char *uend_text(enum uend e)
{
	switch (e) {
	case UEND_SNAPSHOT: return "snapshot exhausted";
	case UEND_NO_CFI: return "no CFI for";
	case UEND_NO_MAP: return "no mapping for";
	case UEND_DEPTH: return "depth limit";
	case UEND_ERROR: return "unwinding failed at";
	case UEND_COMPAT: return "32-bit task, not unwound";
	default: return NULL;
	}
}

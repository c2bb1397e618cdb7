/* SPDX-License-Identifier: MIT */
/*
 * i915-stalls: the unwinder (unwind.c).  A 1.2 record with USER_REGS and a
 * stack snapshot is unwound with CFI in its address space: libdw's walk
 * (dwfl_attach_state(), dwfl_getthread_frames()) over the snapshot alone,
 * or the same steps over the CFI rules cached per address space.  The
 * frames it finds are symbolized like the recorded ones (symbolize.c).
 */
#ifndef I915_STALLS_UNWIND_H
#define I915_STALLS_UNWIND_H

#include "record.h"

struct aspace;

/*
 * The snapshot unwound with CFI: frames innermost first, the first one
 * user_ip.  sp[i] is the stack pointer in frame i (the CFA of frame
 * i - 1); the return address of frame i >= 1 was read at sp[i] - 8.  end
 * tells why the walk stopped, end_addr the PC it stopped at.
 */
enum uend {
	UEND_NONE,		/* the outermost frame (no return address) */
	UEND_SNAPSHOT,		/* the next frame lies past the snapshot */
	UEND_NO_CFI,		/* no CFI covers end_addr */
	UEND_NO_MAP,		/* end_addr is in no mapping with a file */
	UEND_DEPTH,		/* USTACK_CFI_MAX frames */
	UEND_ERROR,		/* libdw could not unwind from end_addr */
	UEND_COMPAT,		/* a 32-bit task: not unwound */
	UEND_COUNT
};
/* An end's text ("no CFI for", ...), as the outputs print it; NULL for
 * UEND_NONE */
const char *uend_text(enum uend e);

#define USTACK_CFI_MAX 64
struct ucfi {
	unsigned int n;
	uint64_t pc[USTACK_CFI_MAX];
	uint64_t sp[USTACK_CFI_MAX];
	bool activation[USTACK_CFI_MAX];
	enum uend end;
	uint64_t end_addr;
};
void unwind_snapshot(struct aspace *as, const struct srec *r, struct ucfi *out);

/* ---- internal: aspace.c ---- */
void unwind_init(void);
void unwind_end(void);		/* -v: how many walks each way */

#endif

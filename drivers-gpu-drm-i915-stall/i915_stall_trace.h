/* SPDX-License-Identifier: MIT */
/*
 * Copyright © 2026 The i915 stall log authors
 *
 * The i915_stall tracepoint: one event per stall the log records, so that
 * a tracer (perf, ftrace, BPF) sees the log's stalls with its own clock and
 * stacks, beside its other events.
 */

#undef TRACE_SYSTEM
#define TRACE_SYSTEM i915

#if !defined(_I915_STALL_TRACE_H_) || defined(TRACE_HEADER_MULTI_READ)
#define _I915_STALL_TRACE_H_

#include <linux/tracepoint.h>
#include <linux/types.h>

#include <drm/drm_device.h>
#include <drm/drm_file.h>

#include "i915_stall_format.h"

/* The sites by name, in the event's format for every tracer to read. */
TRACE_DEFINE_ENUM(I915_STALL_SITE_REQUEST);
TRACE_DEFINE_ENUM(I915_STALL_SITE_ACTIVE);
TRACE_DEFINE_ENUM(I915_STALL_SITE_OBJECT_FENCE);
TRACE_DEFINE_ENUM(I915_STALL_SITE_FENCE);
TRACE_DEFINE_ENUM(I915_STALL_SITE_SYNCOBJ);
TRACE_DEFINE_ENUM(I915_STALL_SITE_SYNCOBJ_TIMELINE);
TRACE_DEFINE_ENUM(I915_STALL_SITE_TEST);

#define show_stall_site(site)							\
	__print_symbolic(site,							\
			 { I915_STALL_SITE_REQUEST, "request_wait" },		\
			 { I915_STALL_SITE_ACTIVE, "active_wait" },		\
			 { I915_STALL_SITE_OBJECT_FENCE, "object_fence_wait" },	\
			 { I915_STALL_SITE_FENCE, "fence_wait" },		\
			 { I915_STALL_SITE_SYNCOBJ, "syncobj_wait" },		\
			 { I915_STALL_SITE_SYNCOBJ_TIMELINE, "syncobj_timeline_wait" }, \
			 { I915_STALL_SITE_TEST, "test" })

/*
 * i915_stall - a stall the log of @drm recorded, @r its record: fired in
 * the waiting task once the record is made, only for stalls at least the
 * threshold of an enabled log.  @minor is -1 for a log of no device.
 */
TRACE_EVENT(i915_stall,
	    TP_PROTO(const struct drm_device *drm, const struct i915_stall_record *r),
	    TP_ARGS(drm, r),
	    TP_STRUCT__entry(__field(int, minor)
			     __field(u16, site)
			     __field(u8, outcome)
			     __field(u8, engine_class)
			     __field(u8, engine_instance)
			     __field(u16, flags)
			     __field(u64, duration_ns)
			     __field(u64, spin_ns)
			     __field(u64, context)
			     __field(u64, seqno)
			     __field(u32, fence_count)
			     __field(u32, owner_pid)
			     __field(s32, error)),
	    TP_fast_assign(__entry->minor = drm && drm->primary ? drm->primary->index : -1;
			   __entry->site = r->site;
			   __entry->outcome = r->outcome;
			   __entry->engine_class = r->engine_class;
			   __entry->engine_instance = r->engine_instance;
			   __entry->flags = r->flags;
			   __entry->duration_ns = r->duration_ns;
			   __entry->spin_ns = r->spin_ns;
			   __entry->context = r->fence_context;
			   __entry->seqno = r->fence_seqno;
			   __entry->fence_count = r->fence_count;
			   __entry->owner_pid = r->owner_pid;
			   __entry->error = r->error),
	    TP_printk("minor=%d site=%s outcome=%u engine=%u:%u fence=%llu:%llu fences=%u owner=%u duration_ns=%llu spin_ns=%llu error=%d flags=0x%x",
		      __entry->minor, show_stall_site(__entry->site),
		      __entry->outcome, __entry->engine_class, __entry->engine_instance,
		      __entry->context, __entry->seqno, __entry->fence_count,
		      __entry->owner_pid, __entry->duration_ns, __entry->spin_ns,
		      __entry->error, __entry->flags)
);

#endif /* _I915_STALL_TRACE_H_ */

/* This part must be outside protection */
#undef TRACE_INCLUDE_PATH
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE i915_stall_trace
#include <trace/define_trace.h>

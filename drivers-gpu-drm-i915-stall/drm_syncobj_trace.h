/* SPDX-License-Identifier: MIT */
/*
 * The tracepoints of the syncobj waits of DRM core, public so that a
 * module may attach probes to them.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM drm
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE drm_syncobj

#if !defined(_TRACE_DRM_SYNCOBJ_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_DRM_SYNCOBJ_H

#include <linux/dma-fence.h>
#include <linux/jiffies.h>
#include <linux/sched.h>
#include <linux/tracepoint.h>

#include <drm/drm_file.h>
#include <drm/drm_syncobj.h>

/*
 * The waits of DRM_IOCTL_SYNCOBJ_WAIT and DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT
 * that sleep: begin before the first sleep, end when the wait ends, each
 * once.  @minor is the node the wait came through; @context and @seqno
 * name the first fence not yet signalled at begin, in the order of the
 * handles (0 and 0 if there is none yet: WAIT_FOR_SUBMIT).
 */
DECLARE_EVENT_CLASS(drm_syncobj_wait,
		    TP_PROTO(const struct drm_syncobj_wait_info *wait),
		    TP_ARGS(wait),
		    TP_STRUCT__entry(__field(int, minor)
				     __field(u32, count)
				     __field(u32, flags)
				     __field(bool, timeline)
				     __field(s64, timeout_ns)
				     __field(long, ret)
				     __field(u32, first)
				     __field(u64, context)
				     __field(u64, seqno)),
		    TP_fast_assign(__entry->minor = wait->file->minor->index;
				   __entry->count = wait->count;
				   __entry->flags = wait->flags;
				   __entry->timeline = wait->timeline;
				   __entry->timeout_ns = wait->timeout == MAX_SCHEDULE_TIMEOUT ?
							 -1 : jiffies64_to_nsecs(wait->timeout);
				   __entry->ret = wait->ret;
				   __entry->first = wait->first;
				   drm_syncobj_wait_unsignalled(wait, &__entry->context,
								&__entry->seqno)),
		    TP_printk("minor=%d count=%u flags=0x%x timeline=%d timeout_ns=%lld ret=%ld first=%u fence=%llu:%llu",
			      __entry->minor, __entry->count, __entry->flags, __entry->timeline,
			      __entry->timeout_ns, __entry->ret, __entry->first,
			      __entry->context, __entry->seqno)
);

DEFINE_EVENT(drm_syncobj_wait, drm_syncobj_wait_begin,
	     TP_PROTO(const struct drm_syncobj_wait_info *wait),
	     TP_ARGS(wait)
);

DEFINE_EVENT(drm_syncobj_wait, drm_syncobj_wait_end,
	     TP_PROTO(const struct drm_syncobj_wait_info *wait),
	     TP_ARGS(wait)
);

#endif /* _TRACE_DRM_SYNCOBJ_H */

/* This part must be outside protection */
#include <trace/define_trace.h>

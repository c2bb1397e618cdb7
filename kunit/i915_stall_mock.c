// SPDX-License-Identifier: MIT
/*
 * Copyright © 2026 The i915 stall log authors
 *
 * A mock GPU for exercising the i915 stall log from userspace, for tests
 * and benchmarks only (CONFIG_DRM_I915_STALL_LOG_MOCK).
 *
 * At boot this creates one i915 mock device (selftests/mock_gem_device.c)
 * and registers it with DRM, so that its stall log files appear in
 * /sys/kernel/debug/dri/N as they do for real hardware.  Next to them,
 * i915_stalls_mock_wait: writing a number of milliseconds to it submits a
 * request of that length to the mock engine, on a GEM context owned by
 * the opener, and waits for it with i915_request_wait() in the writer's
 * own context.  Only the GPU is mocked: the wait, the record, the ring and
 * the debugfs files are the production code paths.
 *
 * i915_stalls_mock_fence serves the syncobj waits of real clients: its
 * I915_STALL_MOCK_FENCE ioctl (i915_stall_mock.h) submits such a request
 * without waiting and returns its fence as a sync_file, which the client
 * imports into a syncobj of the mock device's render node and waits on
 * with DRM_IOCTL_SYNCOBJ_WAIT or DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, as Mesa
 * does.
 *
 * Without CONFIG_DRM_I915_STALL_LOG the same device and waits exist with
 * no log and no hooks: the baseline against which benchmarks measure what
 * the disabled hooks cost.
 *
 * i915_stalls_mock_bench times the recording path for benchmarks: see
 * stall_bench_write().  i915_stalls_mock_other makes a second mock device
 * on demand, with no log, for the syncobj waits of a device whose log is
 * off while this one's is on: see stall_other_write().
 */

#include <linux/debugfs.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/init.h>
#include <linux/jump_label.h>
#include <linux/kstrtox.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/mmap_lock.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/stacktrace.h>
#include <linux/string.h>
#include <linux/sync_file.h>
#include <linux/uaccess.h>

#include <drm/drm_drv.h>

#include "gem/i915_gem_context.h"
#include "gem/selftests/mock_context.h"
#include "gt/intel_gt.h"
#include "selftests/mock_gem_device.h"
#include "selftests/mock_request.h"

#include "i915_drv.h"
#include "i915_request.h"
#include "i915_stall.h"
#include "i915_stall_format.h"
#include "i915_stall_mock.h"
#include "i915_trace.h"

/* Waits longer than this are refused: a test should not hang a CPU. */
#define STALL_MOCK_MAX_MS	60000

struct stall_mock_file {
	struct i915_gem_context *ctx;
	struct intel_context *ce;
};

/* A GEM context of the current task, and its engine, for mock requests. */
static int stall_mock_file_init(struct drm_i915_private *i915, struct stall_mock_file *mf)
{
	mf->ctx = mock_context(i915, "stall-mock");
	if (!mf->ctx)
		return -ENOMEM;
	mf->ctx->pid = get_task_pid(current, PIDTYPE_PID);
	snprintf(mf->ctx->name, sizeof(mf->ctx->name), "%s[%d]",
		 current->comm, pid_nr(mf->ctx->pid));

	mf->ce = i915_gem_context_get_engine(mf->ctx, RCS0);
	if (IS_ERR(mf->ce)) {
		mock_context_close(mf->ctx);
		return -ENOMEM;
	}
	return 0;
}

static void stall_mock_file_fini(struct stall_mock_file *mf)
{
	intel_context_put(mf->ce);
	mock_context_close(mf->ctx);
}

static int stall_mock_open(struct inode *inode, struct file *file)
{
	struct stall_mock_file *mf;
	int err;

	mf = kzalloc(sizeof(*mf), GFP_KERNEL);
	if (!mf)
		return -ENOMEM;

	err = stall_mock_file_init(inode->i_private, mf);
	if (err) {
		kfree(mf);
		return err;
	}
	file->private_data = mf;
	return 0;
}

static ssize_t stall_mock_write(struct file *file, const char __user *ubuf,
				size_t len, loff_t *pos)
{
	struct stall_mock_file *mf = file->private_data;
	struct i915_request *rq;
	unsigned int ms;
	long ret;
	int err;

	err = kstrtouint_from_user(ubuf, len, 10, &ms);
	if (err)
		return err;
	if (ms > STALL_MOCK_MAX_MS)
		return -EINVAL;

	rq = mock_request(mf->ce, msecs_to_jiffies(ms));
	if (IS_ERR(rq))
		return PTR_ERR(rq);

	i915_request_get(rq);
	i915_request_add(rq);
	ret = i915_request_wait(rq, 0, MAX_SCHEDULE_TIMEOUT);
	i915_request_put(rq);

	return ret < 0 ? ret : len;
}

static int stall_mock_release(struct inode *inode, struct file *file)
{
	struct stall_mock_file *mf = file->private_data;

	stall_mock_file_fini(mf);
	kfree(mf);
	return 0;
}

static const struct file_operations stall_mock_fops = {
	.owner = THIS_MODULE,
	.open = stall_mock_open,
	.write = stall_mock_write,
	.release = stall_mock_release,
};

static long stall_mock_fence_ioctl(struct file *file, unsigned int cmd,
				   unsigned long arg)
{
	struct i915_stall_mock_fence __user *uarg = (void __user *)arg;
	struct stall_mock_file *mf = file->private_data;
	struct i915_stall_mock_fence args;
	struct i915_request *rq;
	struct sync_file *sf;
	int fd;

	if (cmd != I915_STALL_MOCK_FENCE)
		return -ENOTTY;
	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	if (args.ms > STALL_MOCK_MAX_MS)
		return -EINVAL;

	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0)
		return fd;

	rq = mock_request(mf->ce, msecs_to_jiffies(args.ms));
	if (IS_ERR(rq)) {
		put_unused_fd(fd);
		return PTR_ERR(rq);
	}
	i915_request_get(rq);
	i915_request_add(rq);
	args.fd = fd;
	args.context = rq->fence.context;
	args.seqno = rq->fence.seqno;
	sf = sync_file_create(&rq->fence);
	i915_request_put(rq);
	if (!sf) {
		put_unused_fd(fd);
		return -ENOMEM;
	}

	if (copy_to_user(uarg, &args, sizeof(args))) {
		fput(sf->file);
		put_unused_fd(fd);
		return -EFAULT;
	}
	fd_install(fd, sf->file);
	return 0;
}

static const struct file_operations stall_mock_fence_fops = {
	.owner = THIS_MODULE,
	.open = stall_mock_open,
	.unlocked_ioctl = stall_mock_fence_ioctl,
	.release = stall_mock_release,
};

/*
 * Microbenchmarks.  Write "MODE ITERATIONS KDEPTH [SECTIONS]": the writer's
 * thread recurses KDEPTH kernel frames, then runs ITERATIONS of MODE:
 *
 *   empty   nothing, the loop alone
 *   hook    the wait-site hooks of i915_request_wait_timeout(), with no log
 *           enabled (patched-out jumps; nothing without the stall log);
 *           -EBUSY if a log is enabled
 *   unwind  stack_trace_save() and stack_trace_save_user(), 32 frames each
 *   uwalk   stack_trace_save_user() alone, 32 frames: the bare walk of the
 *           user stack that a submit record makes
 *   record  i915_stall_record() of a stall over the threshold: both
 *           unwinds, the ring and the rest; -EINVAL if no log is enabled
 *   record-new  the same, each time as if the writer had just mapped or
 *           unmapped something: mmap_write_lock() and mmap_write_unlock()
 *           before each record, so that no CPU's cache of the address
 *           space holds
 *   record-remap  the same, each time after the writer really mapped and
 *           unmapped an anonymous buffer of STALL_BENCH_BUF bytes
 *           (vm_mmap(), vm_munmap()), as a client does with its buffers
 *           between stalls: no CPU knows the version of its mappings, and
 *           each record asks the worker for it
 *   remap   vm_mmap() and vm_munmap() of that buffer alone
 *   relock  mmap_write_lock() and mmap_write_unlock() alone
 *   trace   the i915_request_wait_end tracepoint of a completed request:
 *           what ftrace costs per stall, with whatever triggers are set
 *   submit  a request submitted on a GEM context of the writer, as a
 *           client's are: mock_request(), which makes it and retires the
 *           oldest completed request of the context, and i915_request_add(),
 *           which commits it (the submit hook; a submit record if the log
 *           is enabled) and submits it, and the mock engine completes it
 *           there, a request of 0 ms.  The context is pinned once, before
 *           the loop: a busy client's stays pinned
 *   submit-record  i915_stall_record_submit() alone, of a made-up request:
 *           the submit record that submit makes while the log is enabled;
 *           -EINVAL if no log is enabled
 *
 * With SECTIONS 1 (-EINVAL if no log is enabled) the sections the record
 * path runs with preemption disabled are timed during the loop, see
 * i915_stall_sections_start().
 *
 * Reading the file gives "MODE ITERATIONS NANOSECONDS" of the last run,
 * then, if its sections were timed, " SECTIONS TOTAL_NS LONGEST_NS".
 */
enum stall_bench_mode {
	BENCH_EMPTY, BENCH_HOOK, BENCH_UNWIND, BENCH_UWALK, BENCH_RECORD,
	BENCH_RECORD_NEW, BENCH_RECORD_REMAP, BENCH_REMAP, BENCH_RELOCK,
	BENCH_TRACE, BENCH_SUBMIT, BENCH_SUBMIT_RECORD
};

static const char * const stall_bench_modes[] = {
	[BENCH_EMPTY] = "empty",
	[BENCH_HOOK] = "hook",
	[BENCH_UNWIND] = "unwind",
	[BENCH_UWALK] = "uwalk",
	[BENCH_RECORD] = "record",
	[BENCH_RECORD_NEW] = "record-new",
	[BENCH_RECORD_REMAP] = "record-remap",
	[BENCH_REMAP] = "remap",
	[BENCH_RELOCK] = "relock",
	[BENCH_TRACE] = "trace",
	[BENCH_SUBMIT] = "submit",
	[BENCH_SUBMIT_RECORD] = "submit-record",
};

/* The buffer record-remap and remap map and unmap. */
#define STALL_BENCH_BUF		SZ_1M

static DEFINE_MUTEX(stall_bench_lock);
static char stall_bench_result[160]; /* under stall_bench_lock */

/**
 * struct stall_bench - what a benchmark runs on
 * @log: the mock device's log, NULL without the stall log
 * @rq: trace: a completed request
 * @ce: submit: the writer's context, pinned
 * @mode: enum stall_bench_mode
 * @iter: iterations
 * @err: the first error of an iteration, which ends the loop
 */
struct stall_bench {
	struct i915_stall_log *log;
	struct i915_request *rq;
	struct intel_context *ce;
	int mode;
	u64 iter;
	int err;
};

#if IS_ENABLED(CONFIG_DRM_I915_STALL_LOG)
/* A submit record of a made-up request, as __i915_stall_submit() makes. */
static void stall_bench_submit_record(struct i915_stall_log *log, u64 seqno)
{
	const struct i915_stall_submit sub = {
		.fence_context = 1,
		.fence_seqno = seqno,
		.caller = _RET_IP_,
	};

	i915_stall_record_submit(log, &sub);
}

/* Whether the hooks are live: some device's log is enabled. */
static bool stall_bench_log_enabled(void)
{
	return static_key_enabled(&i915_stall_key);
}

static struct i915_stall_log *stall_bench_log(struct drm_i915_private *i915)
{
	/* The mock device and its log live until shutdown. */
	return rcu_dereference_protected(i915->stall_log, true);
}
#else
static void stall_bench_submit_record(struct i915_stall_log *log, u64 seqno) { }

static bool stall_bench_log_enabled(void)
{
	return false;
}

static struct i915_stall_log *stall_bench_log(struct drm_i915_private *i915)
{
	return NULL;
}
#endif

/* Whether @mode records into the log. */
static bool stall_bench_records(int mode)
{
	return mode == BENCH_RECORD || mode == BENCH_RECORD_NEW ||
	       mode == BENCH_RECORD_REMAP || mode == BENCH_SUBMIT_RECORD;
}

/* Map and unmap an anonymous buffer in the current task's address space. */
static int stall_bench_remap(void)
{
	unsigned long addr;

	addr = vm_mmap(NULL, 0, STALL_BENCH_BUF, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, 0);
	if (IS_ERR_VALUE(addr))
		return (int)addr;
	return vm_munmap(addr, STALL_BENCH_BUF);
}

/* Submit a request of 0 ms on @ce, as a client submits its work. */
static int stall_bench_submit(struct intel_context *ce)
{
	struct i915_request *rq;

	rq = mock_request(ce, 0);
	if (IS_ERR(rq))
		return PTR_ERR(rq);
	i915_request_add(rq);
	return 0;
}

static noinline u64 stall_bench_loop(struct stall_bench *b)
{
	unsigned long kst[I915_STALL_KSTACK_MAX], ust[I915_STALL_USTACK_MAX];
	/* Started at boot: a stall over any threshold a test sets. */
	static const struct i915_stall_wait boot = { .start_ns = 0 };
	const struct i915_stall_info info = {
		.wait = &boot,
		.timeout = MAX_SCHEDULE_TIMEOUT,
		.site = I915_STALL_SITE_TEST,
	};
	int err = 0;
	u64 i, t0, ns;

	t0 = ktime_get_ns();
	for (i = 0; i < b->iter && !err; i++) {
		struct i915_stall_wait w;
		u64 spin;

		switch (b->mode) {
		case BENCH_HOOK:
			/* what i915_request_wait_timeout() runs, log disabled */
			i915_stall_request_begin(&w, b->rq);
			spin = i915_stall_since(&w);
			i915_stall_request_end(NULL, &w, spin, 0, 0, 0);
			break;
		case BENCH_UNWIND:
			stack_trace_save(kst, ARRAY_SIZE(kst), 0);
			stack_trace_save_user(ust, ARRAY_SIZE(ust));
			break;
		case BENCH_UWALK:
			stack_trace_save_user(ust, ARRAY_SIZE(ust));
			break;
		case BENCH_RECORD:
			i915_stall_record(b->log, &info);
			break;
		case BENCH_RECORD_NEW:
			mmap_write_lock(current->mm);
			mmap_write_unlock(current->mm);
			i915_stall_record(b->log, &info);
			break;
		case BENCH_RECORD_REMAP:
			err = stall_bench_remap();
			if (!err)
				i915_stall_record(b->log, &info);
			break;
		case BENCH_REMAP:
			err = stall_bench_remap();
			break;
		case BENCH_RELOCK:
			mmap_write_lock(current->mm);
			mmap_write_unlock(current->mm);
			break;
		case BENCH_TRACE:
			trace_i915_request_wait_end(b->rq);
			break;
		case BENCH_SUBMIT:
			err = stall_bench_submit(b->ce);
			break;
		case BENCH_SUBMIT_RECORD:
			stall_bench_submit_record(b->log, i);
			break;
		}
		barrier();
	}
	ns = ktime_get_ns() - t0;
	OPTIMIZER_HIDE_VAR(kst[0]);
	OPTIMIZER_HIDE_VAR(ust[0]);
	b->err = err;
	return ns;
}

/* @depth small frames deeper, so that both stacks fill their entries. */
static noinline u64 stall_bench_deep(struct stall_bench *b, unsigned int depth)
{
	u64 ns;

	if (!depth)
		return stall_bench_loop(b);

	ns = stall_bench_deep(b, depth - 1);
	OPTIMIZER_HIDE_VAR(ns);
	return ns;
}

static ssize_t stall_bench_write(struct file *file, const char __user *ubuf,
				 size_t len, loff_t *pos)
{
	struct drm_i915_private *i915 = file->private_data;
	struct stall_bench b = { .log = stall_bench_log(i915) };
	struct i915_stall_sections sec = {};
	struct stall_mock_file mf = {};
	unsigned int depth, sections = 0;
	char buf[64], name[16];
	int n, err;
	u64 ns;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	n = sscanf(buf, "%15s %llu %u %u", name, &b.iter, &depth, &sections);
	if (n < 3 || !b.iter || b.iter > 100000000 || depth > 64 || sections > 1)
		return -EINVAL;
	b.mode = match_string(stall_bench_modes, ARRAY_SIZE(stall_bench_modes), name);
	if (b.mode < 0)
		return -EINVAL;
	if (b.mode == BENCH_HOOK && stall_bench_log_enabled())
		return -EBUSY;
	if ((stall_bench_records(b.mode) || sections) && !stall_bench_log_enabled())
		return -EINVAL;

	if (b.mode == BENCH_TRACE) {
		struct intel_engine_cs *engine = to_gt(i915)->engine[RCS0];
		struct i915_request *rq;

		rq = mock_request(engine->kernel_context, 0);
		if (IS_ERR(rq))
			return PTR_ERR(rq);
		i915_request_get(rq);
		i915_request_add(rq);
		i915_request_wait(rq, 0, MAX_SCHEDULE_TIMEOUT);
		b.rq = rq;
	}
	if (b.mode == BENCH_SUBMIT) {
		err = stall_mock_file_init(i915, &mf);
		if (err)
			return err;
		err = intel_context_pin(mf.ce);
		if (err) {
			stall_mock_file_fini(&mf);
			return err;
		}
		b.ce = mf.ce;
	}

	if (sections)
		i915_stall_sections_start();
	ns = stall_bench_deep(&b, depth);
	if (sections)
		i915_stall_sections_stop(&sec);

	if (b.rq)
		i915_request_put(b.rq);
	if (b.ce) {
		intel_context_unpin(b.ce);
		stall_mock_file_fini(&mf);
	}
	if (b.err)
		return b.err;

	mutex_lock(&stall_bench_lock);
	n = scnprintf(stall_bench_result, sizeof(stall_bench_result), "%s %llu %llu",
		      name, b.iter, ns);
	if (sections)
		n += scnprintf(stall_bench_result + n, sizeof(stall_bench_result) - n,
			       " %llu %llu %llu", sec.count, sec.sum_ns, sec.max_ns);
	scnprintf(stall_bench_result + n, sizeof(stall_bench_result) - n, "\n");
	mutex_unlock(&stall_bench_lock);
	return len;
}

static ssize_t stall_bench_read(struct file *file, char __user *ubuf,
				size_t len, loff_t *pos)
{
	char buf[sizeof(stall_bench_result)];

	mutex_lock(&stall_bench_lock);
	memcpy(buf, stall_bench_result, sizeof(buf));
	mutex_unlock(&stall_bench_lock);
	return simple_read_from_buffer(ubuf, len, pos, buf, strlen(buf));
}

static const struct file_operations stall_bench_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = stall_bench_write,
	.read = stall_bench_read,
};

/*
 * Undo mock_gem_device_named() and the registration made here.  Until
 * device_add(), mock_destroy_device() releases the device's devres group,
 * and with it the DRM device, whose release tears i915 down.  Once the
 * device was added, device_del() releases all of its devres itself: the
 * group, the DRM device, and i915 with it unless a file still holds it;
 * only the reference from device_initialize() is left to drop then.
 */
static void stall_mock_destroy(struct drm_i915_private *i915)
{
	struct device *dev = i915->drm.dev;

	if (i915->drm.registered)
		drm_dev_unregister(&i915->drm);
	if (!device_is_registered(dev)) {
		mock_destroy_device(i915);
		return;
	}
	device_del(dev); /* i915 may be freed from here on */
	put_device(dev);
}

/*
 * A second mock device, made on demand, from stall_other_write() to
 * i915_stall_mock_exit(): registered with DRM, so that it has a render
 * node and syncobjs, and with no stall log and none of these files.
 */
static struct drm_i915_private *stall_mock_other;
static DEFINE_MUTEX(stall_mock_other_lock); /* stall_mock_other */

static int stall_mock_other_make(void)
{
	struct drm_i915_private *i915;
	int err;

	lockdep_assert_held(&stall_mock_other_lock);

	i915 = mock_gem_device_named("i915-stall-mock-other");
	if (!i915)
		return -ENOMEM;
	err = device_add(i915->drm.dev);
	if (!err)
		err = drm_dev_register(&i915->drm, 0);
	if (!err && !i915->drm.render)
		err = -ENODEV;
	if (err) {
		stall_mock_destroy(i915);
		return err;
	}
	stall_mock_other = i915;
	return 0;
}

static void stall_mock_other_remove(void)
{
	struct drm_i915_private *i915 = stall_mock_other;

	if (!i915)
		return;
	stall_mock_other = NULL;
	stall_mock_destroy(i915);
}

/*
 * Write 1 to i915_stalls_mock_other to make the second mock device, once.
 * Its syncobj waits, on fences of this device (i915_stalls_mock_fence)
 * imported into its syncobjs, are those of a device whose log is off
 * while this one's is on: DRM core's tracepoints call the log's probes,
 * which find no log of theirs.  Unless i915.stall_log=1 gave every mock
 * device an enabled log.
 */
static ssize_t stall_other_write(struct file *file, const char __user *ubuf,
				 size_t len, loff_t *pos)
{
	bool make;
	int err;

	err = kstrtobool_from_user(ubuf, len, &make);
	if (err)
		return err;
	if (!make)
		return -EINVAL;

	mutex_lock(&stall_mock_other_lock);
	if (!stall_mock_other)
		err = stall_mock_other_make();
	mutex_unlock(&stall_mock_other_lock);
	return err ?: len;
}

/* Reading i915_stalls_mock_other names its render node, renderD<N>. */
static ssize_t stall_other_read(struct file *file, char __user *ubuf,
				size_t len, loff_t *pos)
{
	char buf[32] = "";

	mutex_lock(&stall_mock_other_lock);
	if (stall_mock_other)
		snprintf(buf, sizeof(buf), "renderD%d\n", stall_mock_other->drm.render->index);
	mutex_unlock(&stall_mock_other_lock);
	return simple_read_from_buffer(ubuf, len, pos, buf, strlen(buf));
}

static const struct file_operations stall_other_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = stall_other_write,
	.read = stall_other_read,
};

/* The mock device, from i915_stall_mock_init() to i915_stall_mock_exit(). */
static struct drm_i915_private *stall_mock_i915;

static const char * const stall_mock_files[] = {
	"i915_stalls_mock_wait", "i915_stalls_mock_fence", "i915_stalls_mock_bench",
	"i915_stalls_mock_other",
};

static bool stall_mock_file_made(struct dentry *root, const char *name)
{
	struct dentry *d = debugfs_lookup(name, root);

	dput(d);
	return d;
}

static void stall_mock_files_remove(struct drm_i915_private *i915)
{
	struct dentry *root = i915->drm.debugfs_root;
	unsigned int i;

	if (IS_ERR_OR_NULL(root))
		return;
	for (i = 0; i < ARRAY_SIZE(stall_mock_files); i++)
		debugfs_lookup_and_remove(stall_mock_files[i], root);
	i915_stall_debugfs_unregister(i915, root);
}

/**
 * i915_stall_mock_init - make the stall log's mock device
 *
 * Called from i915's module init, built in or a module.  The device is
 * named i915-stall-mock, so that its debugfs directory cannot be taken by
 * a device of i915's mock selftests ("mock"); its files not made is an
 * error, not a device that says it is ready.
 *
 * Return: 0, or a negative error, in which case there is no device.
 */
int i915_stall_mock_init(void)
{
	struct drm_i915_private *i915;
	struct dentry *root;
	int err;

	i915 = mock_gem_device_named("i915-stall-mock");
	if (!i915)
		return -ENOMEM;
	err = i915_stall_init(i915);
	if (err)
		goto err_device;

	/*
	 * Register the mock device with DRM so that dri/N links to its
	 * debugfs directory, as for real hardware.  Its files live in that
	 * directory, dri/i915-stall-mock, either way.
	 */
	err = device_add(i915->drm.dev);
	if (!err)
		err = drm_dev_register(&i915->drm, 0);
	if (err)
		pr_info("i915 stall mock: not registered (%d), see dri/%s\n",
			err, dev_name(i915->drm.dev));

	root = i915->drm.debugfs_root;
	if (IS_ERR_OR_NULL(root)) {
		err = root ? PTR_ERR(root) : -ENOENT;
		pr_err("i915 stall mock: no debugfs directory dri/%s: %pe\n",
		       dev_name(i915->drm.dev), ERR_PTR(err));
		goto err_unregister;
	}
	i915_stall_debugfs_register(i915, root);
	debugfs_create_file("i915_stalls_mock_wait", 0200, root, i915,
			    &stall_mock_fops);
	debugfs_create_file("i915_stalls_mock_fence", 0600, root, i915,
			    &stall_mock_fence_fops);
	debugfs_create_file("i915_stalls_mock_bench", 0600, root, i915,
			    &stall_bench_fops);
	debugfs_create_file("i915_stalls_mock_other", 0600, root, i915,
			    &stall_other_fops);
	/* Without the stall log (the benchmarks' baseline), no i915_stalls. */
	if (!stall_mock_file_made(root, "i915_stalls_mock_bench") ||
	    (IS_ENABLED(CONFIG_DRM_I915_STALL_LOG) &&
	     !stall_mock_file_made(root, "i915_stalls"))) {
		err = -ENOENT;
		pr_err("i915 stall mock: the files of dri/%s were not made\n",
		       dev_name(i915->drm.dev));
		goto err_unregister;
	}
	stall_mock_i915 = i915;
	pr_info("i915 stall mock: ready in debugfs dri/%s\n", dev_name(i915->drm.dev));
	return 0;

err_unregister:
	stall_mock_files_remove(i915);
err_device:
	stall_mock_destroy(i915);
	return err;
}

/**
 * i915_stall_mock_exit - unmake the stall log's mock device
 */
void i915_stall_mock_exit(void)
{
	struct drm_i915_private *i915 = stall_mock_i915;

	if (!i915)
		return;
	stall_mock_i915 = NULL;
	/* No file may reach the log once it is gone. */
	stall_mock_files_remove(i915);
	mutex_lock(&stall_mock_other_lock);
	stall_mock_other_remove();
	mutex_unlock(&stall_mock_other_lock);
	stall_mock_destroy(i915);
}

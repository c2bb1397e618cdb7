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
 * stall_bench_write().
 */

#include <linux/debugfs.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/init.h>
#include <linux/jump_label.h>
#include <linux/kstrtox.h>
#include <linux/mmap_lock.h>
#include <linux/mutex.h>
#include <linux/pid.h>
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

static int stall_mock_open(struct inode *inode, struct file *file)
{
	struct drm_i915_private *i915 = inode->i_private;
	struct stall_mock_file *mf;

	mf = kzalloc(sizeof(*mf), GFP_KERNEL);
	if (!mf)
		return -ENOMEM;

	mf->ctx = mock_context(i915, "stall-mock");
	if (!mf->ctx)
		goto err_free;
	mf->ctx->pid = get_task_pid(current, PIDTYPE_PID);
	snprintf(mf->ctx->name, sizeof(mf->ctx->name), "%s[%d]",
		 current->comm, pid_nr(mf->ctx->pid));

	mf->ce = i915_gem_context_get_engine(mf->ctx, RCS0);
	if (IS_ERR(mf->ce))
		goto err_ctx;

	file->private_data = mf;
	return 0;

err_ctx:
	mock_context_close(mf->ctx);
err_free:
	kfree(mf);
	return -ENOMEM;
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

	intel_context_put(mf->ce);
	mock_context_close(mf->ctx);
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
 * Microbenchmarks.  Write "MODE ITERATIONS KDEPTH": the writer's thread
 * recurses KDEPTH kernel frames, then runs ITERATIONS of MODE:
 *
 *   empty   nothing, the loop alone
 *   hook    the wait-site hooks of i915_request_wait_timeout(), with no log
 *           enabled (patched-out jumps; nothing without the stall log);
 *           -EBUSY if a log is enabled
 *   unwind  stack_trace_save() and stack_trace_save_user(), 32 frames each
 *   record  i915_stall_record() of a stall over the threshold: both
 *           unwinds, the ring and the rest; -EINVAL if no log is enabled
 *   record-new  the same, each time as if the writer had just mapped or
 *           unmapped something: mmap_write_lock() and mmap_write_unlock()
 *           before each record, so that no CPU's cache of the address
 *           space holds
 *   relock  mmap_write_lock() and mmap_write_unlock() alone
 *   trace   the i915_request_wait_end tracepoint of a completed request:
 *           what ftrace costs per stall, with whatever triggers are set
 *
 * Reading the file gives "MODE ITERATIONS NANOSECONDS" of the last run.
 */
enum stall_bench_mode {
	BENCH_EMPTY, BENCH_HOOK, BENCH_UNWIND, BENCH_RECORD, BENCH_RECORD_NEW,
	BENCH_RELOCK, BENCH_TRACE
};

static const char * const stall_bench_modes[] = {
	[BENCH_EMPTY] = "empty",
	[BENCH_HOOK] = "hook",
	[BENCH_UNWIND] = "unwind",
	[BENCH_RECORD] = "record",
	[BENCH_RECORD_NEW] = "record-new",
	[BENCH_RELOCK] = "relock",
	[BENCH_TRACE] = "trace",
};

static DEFINE_MUTEX(stall_bench_lock);
static char stall_bench_result[64]; /* under stall_bench_lock */

#if IS_ENABLED(CONFIG_DRM_I915_STALL_LOG)
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
static bool stall_bench_log_enabled(void)
{
	return false;
}

static struct i915_stall_log *stall_bench_log(struct drm_i915_private *i915)
{
	return NULL;
}
#endif

static noinline u64 stall_bench_loop(struct i915_stall_log *log,
				     struct i915_request *rq, int mode, u64 iter)
{
	unsigned long kst[I915_STALL_KSTACK_MAX], ust[I915_STALL_USTACK_MAX];
	/* Started at boot: a stall over any threshold a test sets. */
	static const struct i915_stall_wait boot = { .start_ns = 0 };
	const struct i915_stall_info info = {
		.wait = &boot,
		.timeout = MAX_SCHEDULE_TIMEOUT,
		.site = I915_STALL_SITE_TEST,
	};
	u64 i, t0, ns;

	t0 = ktime_get_ns();
	for (i = 0; i < iter; i++) {
		struct i915_stall_wait w;
		u64 spin;

		switch (mode) {
		case BENCH_HOOK:
			/* what i915_request_wait_timeout() runs, log disabled */
			i915_stall_request_begin(&w, rq);
			spin = i915_stall_since(&w);
			i915_stall_request_end(NULL, &w, spin, 0, 0, 0);
			break;
		case BENCH_UNWIND:
			stack_trace_save(kst, ARRAY_SIZE(kst), 0);
			stack_trace_save_user(ust, ARRAY_SIZE(ust));
			break;
		case BENCH_RECORD:
			i915_stall_record(log, &info);
			break;
		case BENCH_RECORD_NEW:
			mmap_write_lock(current->mm);
			mmap_write_unlock(current->mm);
			i915_stall_record(log, &info);
			break;
		case BENCH_RELOCK:
			mmap_write_lock(current->mm);
			mmap_write_unlock(current->mm);
			break;
		case BENCH_TRACE:
			trace_i915_request_wait_end(rq);
			break;
		}
		barrier();
	}
	ns = ktime_get_ns() - t0;
	OPTIMIZER_HIDE_VAR(kst[0]);
	OPTIMIZER_HIDE_VAR(ust[0]);
	return ns;
}

/* @depth small frames deeper, so that both stacks fill their entries. */
static noinline u64 stall_bench_deep(struct i915_stall_log *log,
				     struct i915_request *rq, int mode,
				     u64 iter, unsigned int depth)
{
	u64 ns;

	if (!depth)
		return stall_bench_loop(log, rq, mode, iter);

	ns = stall_bench_deep(log, rq, mode, iter, depth - 1);
	OPTIMIZER_HIDE_VAR(ns);
	return ns;
}

static ssize_t stall_bench_write(struct file *file, const char __user *ubuf,
				 size_t len, loff_t *pos)
{
	struct drm_i915_private *i915 = file->private_data;
	struct i915_request *rq = NULL;
	unsigned int depth;
	int mode;
	char buf[64], name[16];
	u64 iter, ns;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	if (sscanf(buf, "%15s %llu %u", name, &iter, &depth) != 3 ||
	    !iter || iter > 100000000 || depth > 64)
		return -EINVAL;
	mode = match_string(stall_bench_modes, ARRAY_SIZE(stall_bench_modes), name);
	if (mode < 0)
		return -EINVAL;
	if (mode == BENCH_HOOK && stall_bench_log_enabled())
		return -EBUSY;
	if ((mode == BENCH_RECORD || mode == BENCH_RECORD_NEW) && !stall_bench_log_enabled())
		return -EINVAL;

	if (mode == BENCH_TRACE) {
		struct intel_engine_cs *engine = to_gt(i915)->engine[RCS0];

		rq = mock_request(engine->kernel_context, 0);
		if (IS_ERR(rq))
			return PTR_ERR(rq);
		i915_request_get(rq);
		i915_request_add(rq);
		i915_request_wait(rq, 0, MAX_SCHEDULE_TIMEOUT);
	}

	ns = stall_bench_deep(stall_bench_log(i915), rq, mode, iter, depth);
	if (rq)
		i915_request_put(rq);

	mutex_lock(&stall_bench_lock);
	snprintf(stall_bench_result, sizeof(stall_bench_result), "%s %llu %llu\n",
		 name, iter, ns);
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

/* The mock device, from i915_stall_mock_init() to i915_stall_mock_exit(). */
static struct drm_i915_private *stall_mock_i915;

static const char * const stall_mock_files[] = {
	"i915_stalls_mock_wait", "i915_stalls_mock_fence", "i915_stalls_mock_bench",
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
	if (!stall_mock_file_made(root, "i915_stalls_mock_bench") ||
	    !stall_mock_file_made(root, "i915_stalls")) {
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
	if (i915->drm.registered)
		drm_dev_unregister(&i915->drm);
	if (device_is_registered(i915->drm.dev))
		device_del(i915->drm.dev);
err_device:
	mock_destroy_device(i915);
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
	if (i915->drm.registered)
		drm_dev_unregister(&i915->drm);
	if (device_is_registered(i915->drm.dev))
		device_del(i915->drm.dev);
	mock_device_flush(i915);
	i915_stall_fini(i915);
	mock_destroy_device(i915);
}

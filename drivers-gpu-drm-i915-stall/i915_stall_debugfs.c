// SPDX-License-Identifier: MIT
/*
 * Copyright © 2026 The i915 stall log authors
 *
 * The debugfs files of a stall log: the snapshot and the controls.  A
 * write a control file does not accept returns -EINVAL and changes
 * nothing.
 */

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/math64.h>

#include "i915_stall_log.h"

static int stall_enable_get(void *data, u64 *val)
{
	struct i915_stall_log *log = data;

	*val = READ_ONCE(log->enabled);
	return 0;
}

static int stall_enable_set(void *data, u64 val)
{
	struct i915_stall_log *log = data;
	int err;

	if (val > 1)
		return -EINVAL;

	mutex_lock(&log->lock);
	err = i915_stall_log_enable(log, val);
	mutex_unlock(&log->lock);
	return err;
}

DEFINE_DEBUGFS_ATTRIBUTE(stall_enable_fops, stall_enable_get, stall_enable_set,
			 "%llu\n");

static int stall_threshold_get(void *data, u64 *val)
{
	struct i915_stall_log *log = data;

	*val = div_u64(READ_ONCE(log->threshold_ns), NSEC_PER_USEC);
	return 0;
}

static int stall_threshold_set(void *data, u64 val)
{
	if (val > div_u64(U64_MAX, NSEC_PER_USEC))
		return -EINVAL;

	i915_stall_log_set_threshold(data, val * NSEC_PER_USEC);
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(stall_threshold_fops, stall_threshold_get,
			 stall_threshold_set, "%llu\n");

static int stall_clear_set(void *data, u64 val)
{
	struct i915_stall_log *log = data;

	if (val != 1)
		return -EINVAL;

	mutex_lock(&log->lock);
	i915_stall_log_clear(log);
	mutex_unlock(&log->lock);
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(stall_clear_fops, NULL, stall_clear_set, "%llu\n");

static int stall_slots_get(void *data, u64 *val)
{
	struct i915_stall_log *log = data;

	*val = READ_ONCE(log->slots);
	return 0;
}

static int stall_slots_set(void *data, u64 val)
{
	struct i915_stall_log *log = data;
	int err;

	mutex_lock(&log->lock);
	err = i915_stall_log_set_size(log, val, log->ustack_bytes);
	mutex_unlock(&log->lock);
	return err;
}

DEFINE_DEBUGFS_ATTRIBUTE(stall_slots_fops, stall_slots_get, stall_slots_set,
			 "%llu\n");

static int stall_ustack_bytes_get(void *data, u64 *val)
{
	struct i915_stall_log *log = data;

	*val = READ_ONCE(log->ustack_bytes);
	return 0;
}

static int stall_ustack_bytes_set(void *data, u64 val)
{
	struct i915_stall_log *log = data;
	int err;

	mutex_lock(&log->lock);
	err = i915_stall_log_set_size(log, log->slots, val);
	mutex_unlock(&log->lock);
	return err;
}

DEFINE_DEBUGFS_ATTRIBUTE(stall_ustack_bytes_fops, stall_ustack_bytes_get,
			 stall_ustack_bytes_set, "%llu\n");

static const char * const stall_debugfs_files[] = {
	"i915_stalls", "i915_stalls_enable", "i915_stalls_threshold_us",
	"i915_stalls_slots", "i915_stalls_ustack_bytes", "i915_stalls_clear",
};

/**
 * i915_stall_log_debugfs_remove - remove the debugfs files of a stall log
 * @root: the directory i915_stall_log_debugfs() made them in
 *
 * For a directory that outlives the log.
 *
 * Context: Process context.
 */
void i915_stall_log_debugfs_remove(struct dentry *root)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(stall_debugfs_files); i++)
		debugfs_lookup_and_remove(stall_debugfs_files[i], root);
}

/**
 * i915_stall_log_debugfs - create the debugfs files of a stall log
 * @log: the log, which outlives the files
 * @root: the device's debugfs directory, dri/N
 *
 * Creates i915_stalls, the binary snapshot, and the control files
 * i915_stalls_enable, i915_stalls_threshold_us, i915_stalls_slots,
 * i915_stalls_ustack_bytes and i915_stalls_clear.
 *
 * The snapshot holds the user stacks of the processes that stalled and,
 * for a reader that may see them, kernel addresses (see the DOC section).
 * The files are for root alone: 0400 and 0600 in debugfs, which only root
 * mounts and reads.  Being read-only, the snapshot stays readable under
 * lockdown, where the control files do not (see the i915.stall_log
 * parameters).
 *
 * Context: Process context.
 */
void i915_stall_log_debugfs(struct i915_stall_log *log, struct dentry *root)
{
	debugfs_create_file("i915_stalls", 0400, root, log, &i915_stall_snapshot_fops);
	debugfs_create_file_unsafe("i915_stalls_enable", 0600, root, log,
				   &stall_enable_fops);
	debugfs_create_file_unsafe("i915_stalls_threshold_us", 0600, root, log,
				   &stall_threshold_fops);
	debugfs_create_file_unsafe("i915_stalls_slots", 0600, root, log,
				   &stall_slots_fops);
	debugfs_create_file_unsafe("i915_stalls_ustack_bytes", 0600, root, log,
				   &stall_ustack_bytes_fops);
	debugfs_create_file_unsafe("i915_stalls_clear", 0200, root, log,
				   &stall_clear_fops);
}

#if IS_ENABLED(CONFIG_DRM_I915_STALL_LOG_KUNIT_TEST)
#include "tests/i915_stall_debugfs_kunit.c"
#endif

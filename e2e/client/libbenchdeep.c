// SPDX-License-Identifier: MIT
/*
 * One level of stall-bench's deep user stack, built three times as
 * libbenchdeep1.so, 2 and 3 (BENCH_DEEP names the function), so that the
 * stack a record captures runs through three shared libraries and the
 * executable, as a real client's does: what the identity capture costs
 * grows with the distinct mappings the frames fall in.
 */

#ifndef BENCH_DEEP
#error "build with -DBENCH_DEEP=bench_deepN"
#endif

typedef int (*bench_back_fn)(int depth, int (*leaf)(void *), void *arg);

__attribute__((visibility("default"), noinline))
int BENCH_DEEP(int depth, int (*leaf)(void *), void *arg, bench_back_fn back)
{
	int ret = back(depth, leaf, arg);

	__asm__ volatile("" : "+r"(ret));	/* not a tail call */
	return ret;
}

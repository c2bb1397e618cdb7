// SPDX-License-Identifier: MIT
/* libusta.so: a_submit() calls into libustb.so; a_wait2() calls the
 * wrapper itself (the anonymous-memory case).  -DOTHER builds the
 * "replaced" library: other names, another build-id. */
void fake_ioctl(void);
int b_wait(int n);
#ifdef OTHER
#define a_submit replaced_submit
#define a_wait2 replaced_wait2
#endif
int a_submit(int n);
int a_wait2(int n);

__attribute__((noinline)) int a_submit(int n)
{
	volatile int x = n;

	return b_wait(x) + 1;
}

__attribute__((noinline)) int a_wait2(int n)
{
	volatile int x = n;

	fake_ioctl();
	return x + 2;
}

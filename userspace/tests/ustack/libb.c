// SPDX-License-Identifier: MIT
/* libustb.so: always built -fomit-frame-pointer; b_wait() is the waiting
 * function that calls the frameless wrapper (as Mesa's inline intel_ioctl()). */
void fake_ioctl(void);
int b_wait(int n);

__attribute__((noinline)) int b_wait(int n)
{
	volatile int pad[8] = { n };

	fake_ioctl();
	return pad[0] + 1;
}

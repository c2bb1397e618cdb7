/* SPDX-License-Identifier: MIT */
/*
 * The smallest i386 program: exit(32) by int $0x80.  e2e/client/check.sh
 * runs it once (scripts/probe.sh, "probe i386") before its checks of
 * gpu-demo32 on the host: a host that cannot run it lacks 32-bit support
 * (a kernel without IA32 emulation, or booted with ia32_emulation=0),
 * which is no fault of gpu-demo32's.
 */
	.text
	.globl	_start
_start:
	movl	$1, %eax	/* __NR_exit, i386 */
	movl	$32, %ebx
	int	$0x80
	hlt
	.section .note.GNU-stack, "", @progbits

/* SPDX-License-Identifier: MIT */
/*
 * fake_ioctl: a frameless syscall wrapper, as glibc's write() and ioctl()
 * are.  Where the kernel would see the task enter (the instruction after
 * "syscall"), it takes rip (that point), rsp (pointing at its return
 * address) and rbp (its caller's, untouched), and hands them to
 * capture_stall(), which snapshots the stack from rsp up and writes the
 * record; then it returns.
 *
 * anon_tramp: a function with a frame that calls *%rdi; gen.c copies it
 * into anonymous executable memory (position independent, no relocation).
 */
	.text
	.globl	fake_ioctl
	.type	fake_ioctl, @function
fake_ioctl:
	.cfi_startproc
	lea	.Lsyscall_ret(%rip), %rdi
	mov	%rsp, %rsi
	mov	%rbp, %rdx
.Lsyscall_ret:			/* "the syscall returns here": CFA = rsp + 8 */
	sub	$8, %rsp
	.cfi_adjust_cfa_offset 8
	call	capture_stall@PLT
	add	$8, %rsp
	.cfi_adjust_cfa_offset -8
	ret
	.cfi_endproc
	.size	fake_ioctl, .-fake_ioctl

	.globl	anon_tramp
	.type	anon_tramp, @function
anon_tramp:
	push	%rbp
	mov	%rsp, %rbp
	call	*%rdi
	pop	%rbp
	ret
	.size	anon_tramp, .-anon_tramp
	.globl	anon_tramp_end
	.type	anon_tramp_end, @function
anon_tramp_end:
	ret
	.size	anon_tramp_end, .-anon_tramp_end
	.section .note.GNU-stack,"",@progbits

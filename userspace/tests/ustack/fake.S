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

/*
 * reg_rules: never called.  Its CFI holds register(R) rules, as glibc's
 * __longjmp has, for variants.py to start walks at: at reg_rules_unknown
 * the return address is in rdx (not in a record: rip undefined); at
 * reg_rules_known it is in rbp, and the caller's rbp in rsp (so rip must
 * take the callee's rbp, not the caller's).
 */
	.globl	reg_rules
	.type	reg_rules, @function
reg_rules:
	.cfi_startproc
	nop
	.cfi_register %rip, %rdx
	.globl	reg_rules_unknown
reg_rules_unknown:
	nop
	.cfi_register %rip, %rbp
	.cfi_register %rbp, %rsp
	.globl	reg_rules_known
reg_rules_known:
	nop
	ret
	.cfi_endproc
	.size	reg_rules, .-reg_rules
	.section .note.GNU-stack,"",@progbits

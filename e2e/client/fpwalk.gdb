# SPDX-License-Identifier: MIT
# Walk the user stack by frame pointers exactly as the kernel's
# stack_trace_save_user() does on x86-64: the PC, then the return address
# above each saved %rbp, following the saved %rbp chain.
set pagination off
set confirm off
set breakpoint pending on
break gpu_wait
run
catch syscall write
continue
stepi
info symbol $pc
set $f = $rbp
set $k = 0
while $f != 0 && $k < 16
  set $ret = *(unsigned long *)($f + 8)
  if $ret == 0
    loop_break
  end
  info symbol $ret - 1
  set $f = *(unsigned long *)$f
  set $k = $k + 1
end
kill
quit

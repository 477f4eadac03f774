// SPDX-License-Identifier: GPL-2.0
/*
 * exit_at_once: a static program that does nothing but exit(0), for
 * stamp_native's fork/exec/exit loop, so that an exec costs the kernel's
 * work and as little of the program's own as possible (no C library start).
 *
 *   gcc -O2 -static -nostdlib -fno-stack-protector -o exit_at_once exit_at_once.c
 */
#include <asm/unistd.h>

void _start(void)
{
#if defined(__x86_64__)
	__asm__ volatile("syscall" : : "a"(__NR_exit_group), "D"(0));
#elif defined(__aarch64__)
	register long nr __asm__("x8") = __NR_exit_group;
	register long code __asm__("x0") = 0;

	__asm__ volatile("svc #0" : : "r"(nr), "r"(code));
#else
#error "exit_at_once: x86_64 or arm64 only"
#endif
	for (;;)
		;
}

/*
 * Waits for a timer interrupt in a `j .` loop, then passes. E-Trace cannot say how many times an
 * inferable jump to itself ran (no branch, no packet), so the round trip of this program decodes
 * the loop once: trace-elf --check reports the difference (docs/trace-elf.md, "Limits").
 */
	.option norelax
	.section .text.init, "ax", @progbits
	.globl _start
_start:
	la t0, handler
	csrw mtvec, t0
	li t0, 0x0200bff8
	ld t1, 0(t0)
	addi t1, t1, 2
	li t0, 0x02004000
	sd t1, 0(t0)
	li t0, 0x80
	csrs mie, t0
	csrsi mstatus, 8
idle:
	j idle
	.balign 4
handler:
	li t0, 0x100000
	li t1, 0x5555
	sw t1, 0(t0)
1:	j 1b

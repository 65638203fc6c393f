/*
 * RV32IMC fixture of the QEMU trace import (see README.md): branches, c.jal and other calls,
 * U-mode with ecall and an illegal instruction, and a timer interrupt that ends an M-mode spin
 * loop on a branch to itself (QEMU logs the same block again and again, and the one the interrupt
 * stops as "Stopped execution of TB chain"). The loop is a branch, not `j .`: E-Trace cannot tell
 * how many times an inferable jump to itself ran (docs/trace-elf.md, "Limits").
 */
	.option norelax
	.equ MTIMECMP, 0x02004000
	.equ MTIME, 0x0200bff8
	.equ TEST, 0x100000

	.section .text.init, "ax", @progbits
	.globl _start
_start:
	la t0, trap_vector
	csrw mtvec, t0
	li t0, -1
	csrw pmpaddr0, t0
	li t0, 0x1f
	csrw pmpcfg0, t0

	li a0, 4
1:	c.addi a0, -1
	c.bnez a0, 1b
	c.jal leaf                 /* RV32 only: c.jal, an inferable call */
	call leaf                  /* auipc ra + jalr ra: sequentially inferable call */
	la t1, leaf
	c.jalr t1                  /* uninferable call */

	li t0, (3 << 11)
	csrc mstatus, t0           /* MPP = U */
	la t0, user
	csrw mepc, t0
	mret

user:
	ecall                      /* a7 = 0: skipped by the handler */
	.word 0x0000006b           /* illegal instruction */
	li a7, 1
	ecall                      /* back to machine_again in M-mode */
	j fail

machine_again:
	li t0, MTIMECMP
	li t1, -1
	sw t1, 4(t0)               /* no spurious match while the low word changes */
	li t2, MTIME
	lw t1, 0(t2)
	addi t1, t1, 3
	sw t1, 0(t0)
	sw zero, 4(t0)
	li t0, 0x80
	csrs mie, t0               /* MTIE */
	csrsi mstatus, 8           /* MIE */
	li a5, 0
spin:
	c.beqz a5, spin            /* until the timer interrupt; the handler resumes at after_spin */
after_spin:
	li t0, TEST
	li t1, 0x5555
	sw t1, 0(t0)
2:	j 2b

fail:
	li t0, TEST
	li t1, (1 << 16) | 0x3333
	sw t1, 0(t0)
3:	j 3b

leaf:
	c.addi a3, 1
	c.jr ra

	.balign 4
trap_vector:
	csrr t5, mcause
	bltz t5, interrupt
	csrr t6, mepc
	addi t6, t6, 4
	csrw mepc, t6
	li t6, 1
	bne a7, t6, 4f
	li t6, 8
	csrr t5, mcause
	bne t5, t6, 4f
	la t6, machine_again
	csrw mepc, t6
	li t6, (3 << 11)
	csrs mstatus, t6           /* MPP = M */
4:	mret
interrupt:
	li t5, MTIMECMP
	li t6, -1
	sw t6, 4(t5)
	la t6, after_spin
	csrw mepc, t6
	mret

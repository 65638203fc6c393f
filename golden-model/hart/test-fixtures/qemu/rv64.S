/*
 * RV64GC fixture of the QEMU trace import (see README.md): branches taken and not taken, calls and
 * returns of every kind, compressed instructions, U-mode with ecall and an illegal instruction
 * trapping to an M-mode handler, timer interrupts (one pending when mret enters U-mode, one in a
 * U-mode loop, one ending an M-mode wfi) and exit through the SiFive test device.
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
	/* One NAPOT PMP entry over everything, or QEMU 7.2 refuses mret into U-mode. */
	li t0, -1
	csrw pmpaddr0, t0
	li t0, 0x1f
	csrw pmpcfg0, t0

	/* Branches: a counted loop with an inner branch taken every other time. */
	li a0, 5
	li a1, 0
1:	addi a0, a0, -1
	andi t1, a0, 1
	beqz t1, 2f
	c.addi a1, 1
2:	bnez a0, 1b
	c.beqz a1, fail            /* not taken */
	c.bnez a1, 3f              /* taken */
	j fail
3:
	/* Calls and returns. */
	call leaf                  /* auipc ra + jalr ra: a sequentially inferable call */
	jal leaf2                  /* inferable call, returns with a 32-bit jalr x0, ra */
	la t2, leaf
	jalr t2                    /* uninferable call (la puts an addi between auipc and jalr) */
	c.jalr t2                  /* compressed uninferable call */
	la t0, coroutine
	jalr ra, 0(t0)             /* call into a co-routine that swaps back with jalr t0, ra */
	jal t1, other              /* jal with a non-link rd: other inferable jump */
back_from_other:
	call tailcaller

	/* Enter U-mode with a timer interrupt already pending: it is taken before the first U-mode
	   instruction (the privilege at the interrupt is the MPP that mret restored). */
	li t0, MTIMECMP
	sd zero, 0(t0)
	li t0, 0x80
	csrs mie, t0               /* MTIE; mstatus.MIE stays 0, so M-mode is not interrupted */
	li t0, (3 << 11)
	csrc mstatus, t0           /* MPP = U */
	la t0, user
	csrw mepc, t0
	mret

user:
	c.nop
	ecall                      /* a7 = 0: the handler skips it */
	.word 0x0000006b           /* reserved 32-bit opcode: illegal instruction, does not retire */
	c.unimp                    /* 16-bit illegal instruction */
	/* A timer interrupt in a U-mode loop: arm it for later, spin until the handler sets the flag. */
	li a7, 2
	ecall                      /* a7 = 2: the handler clears the flag, arms the timer 3 ticks ahead */
	la t3, flag
4:	lw t4, 0(t3)
	c.addi a2, 1
	beqz t4, 4b
	li a7, 1
	ecall                      /* a7 = 1: the handler returns to machine_again in M-mode */
	j fail

machine_again:
	/* A timer interrupt ends a wfi in M-mode. */
	li t0, MTIME
	ld t1, 0(t0)
	addi t1, t1, 5
	li t0, MTIMECMP
	sd t1, 0(t0)
	csrsi mstatus, 8           /* MIE */
	wfi
	csrci mstatus, 8
	li t0, TEST
	li t1, 0x5555
	sw t1, 0(t0)
5:	j 5b

fail:
	li t0, TEST
	li t1, (1 << 16) | 0x3333
	sw t1, 0(t0)
6:	j 6b

leaf:
	c.addi a3, 1
	ret                        /* c.jr ra */
leaf2:
	.option push
	.option norvc
	addi a3, a3, 2
	ret                        /* jalr x0, 0(ra) */
	.option pop
coroutine:
	c.addi a4, 1
	jalr t0, 0(ra)             /* co-routine swap back to the caller */
other:
	c.addi a5, 1
	jr t1                      /* jalr x0, t1: uninferable tail call through t1 */
tailcaller:
	c.mv s0, ra
	tail leaf_tail             /* auipc t1 + jalr x0, t1: sequentially inferable tail call */
leaf_tail:
	c.mv ra, s0
	c.jr ra

/* The M-mode trap handler (direct mode: 4-byte aligned). */
	.balign 4
trap_vector:
	csrr t5, mcause
	bltz t5, interrupt
	li t6, 8
	beq t5, t6, ecall_from_u
	li t6, 2
	bne t5, t6, fail
	/* Illegal instruction: skip it (2 or 4 bytes). */
	csrr t6, mepc
	lhu t5, 0(t6)
	andi t5, t5, 3
	addi t6, t6, 2
	li t4, 3
	bne t5, t4, 7f
	addi t6, t6, 2
7:	csrw mepc, t6
	mret
ecall_from_u:
	csrr t6, mepc
	addi t6, t6, 4
	csrw mepc, t6
	li t6, 1
	beq a7, t6, to_machine
	li t6, 2
	bne a7, t6, 8f
	la t5, flag
	sw zero, 0(t5)
	li t5, MTIME
	ld t6, 0(t5)
	addi t6, t6, 3
	li t5, MTIMECMP
	sd t6, 0(t5)
	li t6, 0x80
	csrs mie, t6
8:	mret
to_machine:
	la t6, machine_again
	csrw mepc, t6
	li t6, (3 << 11)
	csrs mstatus, t6           /* MPP = M */
	mret
interrupt:
	/* Machine timer: disarm it, tell the waiting loop. */
	li t5, MTIMECMP
	li t6, -1
	sd t6, 0(t5)
	la t5, flag
	li t6, 1
	sw t6, 0(t5)
	mret

	.data
flag:	.word 0
	.bss
scratch: .space 64                 /* memsz > filesz: the image holds it as zeros */

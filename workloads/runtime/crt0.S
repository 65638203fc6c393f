/*
 * Start-up code and the machine-mode trap vector of the workload runtime (see rt.h).
 *
 * QEMU's `virt` with `-bios none -kernel x.elf` loads the ELF segments straight into RAM and its
 * reset ROM at 0x1000 jumps to 0x80000000, where link.ld places _start. Because the image is loaded
 * at its run address, .data needs no copy; .bss (and the TLS .tbss space) is zeroed here.
 */
	/* Names the file symbol (the assembler would otherwise use the compiler's random temporary name). */
	.file "crt0.S"

#if __riscv_xlen == 64
#define REG_S sd
#define REG_L ld
#define REGBYTES 8
#else
#define REG_S sw
#define REG_L lw
#define REGBYTES 4
#endif

/* struct rt_trap_frame: 32 registers + mepc, mstatus, mcause, mtval (a multiple of 16 bytes). */
#define FRAME_WORDS 36
#define FRAME_BYTES (FRAME_WORDS * REGBYTES)
#define F_MEPC (32 * REGBYTES)
#define F_MSTATUS (33 * REGBYTES)
#define F_MCAUSE (34 * REGBYTES)
#define F_MTVAL (35 * REGBYTES)

	.section .text.init, "ax", @progbits
	.globl _start
	.type _start, @function
_start:
	.option push
	.option norelax
	la gp, __global_pointer$
	.option pop
	la sp, __stack_top
	/* Single hart: the TLS template in RAM (.tdata then .tbss space) is the thread's block. */
	la tp, __tls_base

	csrw mie, zero
	la t0, rt_trap_vector
	csrw mtvec, t0
	/* mscratch always holds the top of the trap stack while no trap is being handled. */
	la t0, __trap_stack_top
	csrw mscratch, t0

	/*
	 * With no PMP entry, S/U-mode may access nothing. One NAPOT entry covering the whole address
	 * space with R/W/X lets U-mode code (the traps workload) run; M-mode is unaffected.
	 */
	li t0, -1
	csrw pmpaddr0, t0
	li t0, 0x1f
	csrw pmpcfg0, t0

#ifdef __riscv_flen
	/* mstatus.FS = Initial, so floating-point instructions do not trap. */
	li t0, (1 << 13)
	csrs mstatus, t0
	csrw fcsr, zero
#endif

	/* Zero .tbss space and .bss (link.ld aligns both ends to 16 bytes). */
	la t0, __bss_start
	la t1, __bss_end
	bgeu t0, t1, 2f
1:
	REG_S zero, 0(t0)
	addi t0, t0, REGBYTES
	bltu t0, t1, 1b
2:
	call main
	call rt_exit
	.size _start, . - _start

/*
 * Direct-mode trap vector (mtvec needs 4-byte alignment). Swaps to the trap stack through
 * mscratch, saves x1..x31 and the trap CSRs into a struct rt_trap_frame, calls
 * rt_trap_handler(frame), writes back mepc and mstatus from the frame (the handler may change
 * them, e.g. mepc += 4 to skip an ecall), restores the registers and returns with mret.
 * Handlers run with interrupts disabled (mstatus.MIE is cleared on entry) and must not use
 * floating point: the F registers are not saved.
 */
	.text
	.balign 4
	.globl rt_trap_vector
	.type rt_trap_vector, @function
rt_trap_vector:
	csrrw sp, mscratch, sp
	addi sp, sp, -FRAME_BYTES
	REG_S x1, 1*REGBYTES(sp)
	REG_S x3, 3*REGBYTES(sp)
	REG_S x4, 4*REGBYTES(sp)
	REG_S x5, 5*REGBYTES(sp)
	REG_S x6, 6*REGBYTES(sp)
	REG_S x7, 7*REGBYTES(sp)
	REG_S x8, 8*REGBYTES(sp)
	REG_S x9, 9*REGBYTES(sp)
	REG_S x10, 10*REGBYTES(sp)
	REG_S x11, 11*REGBYTES(sp)
	REG_S x12, 12*REGBYTES(sp)
	REG_S x13, 13*REGBYTES(sp)
	REG_S x14, 14*REGBYTES(sp)
	REG_S x15, 15*REGBYTES(sp)
	REG_S x16, 16*REGBYTES(sp)
	REG_S x17, 17*REGBYTES(sp)
	REG_S x18, 18*REGBYTES(sp)
	REG_S x19, 19*REGBYTES(sp)
	REG_S x20, 20*REGBYTES(sp)
	REG_S x21, 21*REGBYTES(sp)
	REG_S x22, 22*REGBYTES(sp)
	REG_S x23, 23*REGBYTES(sp)
	REG_S x24, 24*REGBYTES(sp)
	REG_S x25, 25*REGBYTES(sp)
	REG_S x26, 26*REGBYTES(sp)
	REG_S x27, 27*REGBYTES(sp)
	REG_S x28, 28*REGBYTES(sp)
	REG_S x29, 29*REGBYTES(sp)
	REG_S x30, 30*REGBYTES(sp)
	REG_S x31, 31*REGBYTES(sp)
	csrr t0, mscratch          /* the interrupted sp */
	REG_S t0, 2*REGBYTES(sp)
	csrr t0, mepc
	REG_S t0, F_MEPC(sp)
	csrr t0, mstatus
	REG_S t0, F_MSTATUS(sp)
	csrr t0, mcause
	REG_S t0, F_MCAUSE(sp)
	csrr t0, mtval
	REG_S t0, F_MTVAL(sp)

	mv a0, sp
	call rt_trap_handler

	REG_L t0, F_MEPC(sp)
	csrw mepc, t0
	REG_L t0, F_MSTATUS(sp)
	csrw mstatus, t0
	addi t0, sp, FRAME_BYTES   /* trap stack top again */
	csrw mscratch, t0
	REG_L x1, 1*REGBYTES(sp)
	REG_L x3, 3*REGBYTES(sp)
	REG_L x4, 4*REGBYTES(sp)
	REG_L x5, 5*REGBYTES(sp)
	REG_L x6, 6*REGBYTES(sp)
	REG_L x7, 7*REGBYTES(sp)
	REG_L x8, 8*REGBYTES(sp)
	REG_L x9, 9*REGBYTES(sp)
	REG_L x10, 10*REGBYTES(sp)
	REG_L x11, 11*REGBYTES(sp)
	REG_L x12, 12*REGBYTES(sp)
	REG_L x13, 13*REGBYTES(sp)
	REG_L x14, 14*REGBYTES(sp)
	REG_L x15, 15*REGBYTES(sp)
	REG_L x16, 16*REGBYTES(sp)
	REG_L x17, 17*REGBYTES(sp)
	REG_L x18, 18*REGBYTES(sp)
	REG_L x19, 19*REGBYTES(sp)
	REG_L x20, 20*REGBYTES(sp)
	REG_L x21, 21*REGBYTES(sp)
	REG_L x22, 22*REGBYTES(sp)
	REG_L x23, 23*REGBYTES(sp)
	REG_L x24, 24*REGBYTES(sp)
	REG_L x25, 25*REGBYTES(sp)
	REG_L x26, 26*REGBYTES(sp)
	REG_L x27, 27*REGBYTES(sp)
	REG_L x28, 28*REGBYTES(sp)
	REG_L x29, 29*REGBYTES(sp)
	REG_L x30, 30*REGBYTES(sp)
	REG_L x31, 31*REGBYTES(sp)
	REG_L sp, 2*REGBYTES(sp)
	mret
	.size rt_trap_vector, . - rt_trap_vector

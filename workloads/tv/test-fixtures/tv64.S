/*
 * RV64GC fixture of the tandem-verification derivation (workloads/tv/): what the workloads do not
 * exercise. Floating point with every exception flag, read back with frflags after each operation
 * (the derivation checks each read against the flags it computed, so QEMU judges fflags.ts); the
 * rounding modes (static and dynamic); a WARL CSR QEMU does not print (menvcfg), written and read
 * back; AMOs, with rd = x0 too (the old value then comes from the
 * derived memory), lr/sc with a failing sc; S-mode with an ecall delegated to it (a trap into S:
 * sstatus, scause, sepc, stval), sret, an sstatus write; an ebreak back to M-mode; exit through the
 * SiFive test device.
 * Build: riscv64-unknown-elf-gcc -nostdlib -march=rv64gc_zicsr -mabi=lp64d
 *        -T golden-model/hart/test-fixtures/qemu/link.ld tv64.S -o tv64.elf
 */
	.option norelax
	.equ TEST, 0x100000

	.section .text.init, "ax", @progbits
	.globl _start
_start:
	la t0, m_trap
	csrw mtvec, t0
	li t0, -1
	csrw pmpaddr0, t0
	li t0, 0x1f
	csrw pmpcfg0, t0
	li t0, (1 << 13)
	csrs mstatus, t0           /* FS = Initial */
	csrw fcsr, zero

	/* Every flag, one operation at a time, read back and cleared. */
	la s0, fpdata
	fld fa0, 0(s0)             /* 1.0 */
	fld fa1, 8(s0)             /* 3.0 */
	fld fa4, 16(s0)            /* DBL_MAX */
	fld fa6, 24(s0)            /* 2^-1022, the smallest normal */
	fld fs0, 32(s0)            /* a signaling NaN */
	fld fs1, 40(s0)            /* a quiet NaN */
	fld fs2, 48(s0)            /* +inf */
	fld fs3, 56(s0)            /* 2.5 */
	fld fs4, 64(s0)            /* -0.5 */
	fld fs5, 72(s0)            /* -1.0 */
	fmv.d.x ft0, zero          /* +0 */

	fadd.d ft1, fa0, fa1       /* 4.0: exact */
	frflags a0
	fdiv.d fa2, fa0, fa1       /* 1/3: NX */
	frflags a0
	fsflags zero
	fmul.d fa5, fa4, fa4       /* OF NX */
	frflags a0
	fsflags zero
	fmul.d fa7, fa6, fa6       /* UF NX */
	frflags a0
	fsflags zero
	fdiv.d ft1, fa0, ft0       /* DZ */
	frflags a0
	fsflags zero
	fdiv.d ft2, ft0, ft0       /* NV */
	frflags a0
	fsflags zero
	fsqrt.d ft3, fa1           /* NX */
	frflags a0
	fsflags zero
	fsqrt.d ft3, fs5           /* sqrt(-1): NV */
	frflags a0
	fsflags zero
	fsub.d ft4, fs2, fs2       /* inf - inf: NV */
	frflags a0
	fsflags zero
	fmul.d ft4, ft0, fs2       /* 0 * inf: NV */
	frflags a0
	fsflags zero
	fmadd.d ft5, ft0, fs2, fs1 /* 0 * inf + qNaN: NV */
	frflags a0
	fsflags zero
	fmadd.d ft5, fa0, fa1, fa2 /* 3 + 1/3: NX */
	frflags a0
	fsflags zero
	fnmsub.d ft5, fa2, fa1, fa0 /* -(1/3 * 3) + 1 */
	frflags a0
	fsflags zero
	fadd.d ft6, fa0, fs0       /* sNaN: NV */
	frflags a0
	fsflags zero
	fadd.d ft6, fa0, fs1       /* qNaN: nothing */
	frflags a0
	feq.d a1, fa0, fs1         /* quiet compare with a qNaN: nothing */
	frflags a0
	flt.d a1, fa0, fs1         /* signaling compare: NV */
	frflags a0
	fsflags zero
	feq.d a1, fa0, fs0         /* sNaN: NV */
	frflags a0
	fsflags zero
	fmin.d ft7, fa0, fs0       /* sNaN: NV */
	frflags a0
	fsflags zero
	fmax.d ft7, fa0, fs1
	frflags a0
	fclass.d a1, fs0
	fsgnjn.d ft7, fa0, fa1
	fmv.x.d a1, fa2
	frflags a0

	/* Conversions, with rounding modes. */
	fcvt.w.d a1, fa2           /* 0: NX */
	frflags a0
	fsflags zero
	fcvt.w.d a1, fa4           /* out of range: NV */
	frflags a0
	fsflags zero
	fcvt.wu.d a1, fs5          /* -1.0 to unsigned: NV */
	frflags a0
	fsflags zero
	fcvt.wu.d a1, fs4, rtz     /* -0.5 -> 0: NX */
	frflags a0
	fsflags zero
	fcvt.l.d a1, fs3, rne      /* 2.5 -> 2: NX */
	fcvt.l.d a2, fs3, rup      /* -> 3 */
	fcvt.l.d a3, fs3, rmm      /* -> 3 */
	fcvt.l.d a4, fs3, rdn      /* -> 2 */
	frflags a0
	fsflags zero
	fcvt.s.d ft8, fa2          /* NX */
	frflags a0
	fsflags zero
	fcvt.s.d ft8, fa4          /* OF NX */
	frflags a0
	fsflags zero
	fcvt.s.d ft8, fa2
	fadd.s ft9, ft8, ft8       /* single: NX */
	fcvt.d.s ft10, ft9         /* exact */
	frflags a0
	fsflags zero
	li t1, 0x7fffffff
	fcvt.s.w ft9, t1           /* 2^31 - 1 does not fit 24 bits: NX */
	frflags a0
	fsflags zero
	li t1, 12345
	fcvt.d.w ft9, t1           /* exact */
	fcvt.d.lu ft9, t0
	frflags a0
	fsflags zero
	fsw ft8, 80(s0)
	flw ft11, 80(s0)
	fsd fa2, 88(s0)
	fld ft11, 88(s0)

	/* Dynamic rounding: frm = RTZ, then RUP. */
	fsrmi 1
	fdiv.d ft1, fa0, fa1
	fsrmi 3
	fdiv.d ft2, fa0, fa1
	frcsr a0
	fscsr a1, zero
	frcsr a0

	/* A WARL CSR QEMU does not print: the value read back is the one held (menvcfg keeps few bits). */
	li t0, -1
	csrw menvcfg, t0
	csrr a0, menvcfg

	/* AMOs, lr/sc. */
	la s1, amodata
	li t1, 5
	amoadd.d a0, t1, (s1)
	amoswap.w a1, t1, (s1)
	amoadd.w zero, t1, (s1)    /* old value from the derived memory */
	li t2, -7
	amomax.w a2, t2, (s1)
	amomin.w a2, t2, (s1)
	amomaxu.d a3, t2, (s1)
	amominu.d zero, t1, (s1)
	amoxor.d a4, t1, (s1)
	amoor.d a4, t2, (s1)
	amoand.d zero, t1, (s1)
	lr.d a5, (s1)
	sc.d a6, t2, (s1)          /* succeeds */
	sc.d a6, t1, (s1)          /* fails: no reservation */
	ld a7, 0(s1)
	addi s2, s1, 8
	lr.w a5, (s2)
	sc.w a6, t2, (s1)          /* another address: fails */
	lw a7, 8(s1)

	/* S-mode, with ecalls from U delegated to it. */
	li t0, (1 << 8)
	csrw medeleg, t0
	la t0, s_trap
	csrw stvec, t0
	li t0, (3 << 11)
	csrc mstatus, t0
	li t0, (1 << 11)
	csrs mstatus, t0           /* MPP = S */
	la t0, s_code
	csrw mepc, t0
	mret
s_code:
	csrr a0, sstatus
	li t0, (1 << 8)
	csrc sstatus, t0           /* SPP = U */
	li t0, (1 << 18)
	csrs sstatus, t0           /* SUM */
	la t0, u_code
	csrw sepc, t0
	sret
u_code:
	c.nop
	ecall                      /* to S */
	c.nop
	ebreak                     /* to M: the end */
	j fail

	.balign 4
s_trap:
	csrr t0, scause
	csrr t1, sepc
	addi t1, t1, 4
	csrw sepc, t1
	sret

	.balign 4
m_trap:
	csrr t0, mcause
	li t1, 3
	bne t0, t1, fail
	li t0, TEST
	li t1, 0x5555
	sw t1, 0(t0)
1:	j 1b
fail:
	li t0, TEST
	li t1, (1 << 16) | 0x3333
	sw t1, 0(t0)
2:	j 2b

	.data
	.balign 8
fpdata:
	.dword 0x3ff0000000000000  /* 1.0 */
	.dword 0x4008000000000000  /* 3.0 */
	.dword 0x7fefffffffffffff  /* DBL_MAX */
	.dword 0x0010000000000000  /* 2^-1022 */
	.dword 0x7ff4000000000000  /* sNaN */
	.dword 0x7ff8000000000000  /* qNaN */
	.dword 0x7ff0000000000000  /* +inf */
	.dword 0x4004000000000000  /* 2.5 */
	.dword 0xbfe0000000000000  /* -0.5 */
	.dword 0xbff0000000000000  /* -1.0 */
	.dword 0
	.dword 0
amodata:
	.dword 0x100
	.dword 0x200

/*
 * RV64 fixture of trace-elf --data (workloads/trace.ts): accesses whose addresses and values the
 * test knows from this source alone. Build: riscv64-unknown-elf-gcc -nostdlib -march=rv64gc_zicsr
 * -mabi=lp64d -T golden-model/hart/test-fixtures/qemu/link.ld data64.S -o data64.elf
 */
	.option norelax
	.section .text.init, "ax", @progbits
	.globl _start
_start:
	la t0, target
	li t1, 0x12345678
	sw t1, 0(t0)               /* store 0x12345678 to target */
	lw t2, 0(t0)               /* load it back */
	li a1, 0x1111
	amoadd.w t3, a1, (t0)      /* old 0x12345678, operand 0x1111 */
	lw t4, 0(t0)               /* 0x12346789 */
	lw zero, 0(t0)             /* into x0: the value comes from the stores the trace saw */
	li t1, -2
	sd t1, 8(t0)               /* 0xfffffffffffffffe */
	lb t5, 8(t0)               /* the byte 0xfe (sign extended in t5, not on the interface) */
	csrw mscratch, t1          /* csrrw zero, mscratch, t1 */
	csrr t6, mscratch          /* csrrs t6, mscratch, zero: reads 0xfffffffffffffffe */
	csrci mscratch, 6          /* csrrci zero, mscratch, 6 */
	li t0, 0x100000            /* SiFive test device: pass */
	li t1, 0x5555
	sw t1, 0(t0)
1:	j 1b

	.data
	.globl target
	.balign 8
target:
	.dword 0, 0

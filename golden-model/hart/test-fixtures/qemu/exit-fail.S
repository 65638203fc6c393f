/* Reports failure code 3 through the SiFive test device: QEMU exits with status 3. */
	.section .text.init, "ax", @progbits
	.globl _start
_start:
	li t0, 0x100000
	li t1, (3 << 16) | 0x3333
	sw t1, 0(t0)
1:	j 1b

/* Never ends: a counting loop (for the timeout and --max-instructions). */
	.section .text.init, "ax", @progbits
	.globl _start
_start:
	li a0, 0
1:	addi a0, a0, 1
	bnez a0, 1b
	j _start

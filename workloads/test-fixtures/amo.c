/*
 * Test fixture: executes amoadd.w (A extension; written as a raw word so that it assembles for
 * RV32IMC). Passes on the RV64GC hart; on the RV32IMC hart (QEMU -cpu rv32,a=false,...) it is an
 * illegal instruction, so the runtime's default trap handler exits with RT_EXIT_TRAP (0x7e).
 */
#include "rt.h"

static volatile uint32_t word = 5;

int main(void)
{
	register volatile uint32_t *a0 __asm__("a0") = &word;
	register uint32_t a1 __asm__("a1") = 3;
	__asm__ volatile(".word 0x00b5202f" /* amoadd.w x0, a1, (a0) */ ::"r"(a0), "r"(a1) : "memory");
	return word == 8 ? 0 : 1;
}

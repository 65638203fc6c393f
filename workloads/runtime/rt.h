/*
 * Bare-metal runtime for the workload suite on QEMU's `virt` machine (RV64GC and RV32IMC).
 *
 * Memory map used (virt): RAM at 0x80000000 (the image, stacks and .bss), SiFive test/finisher
 * device at 0x00100000 (exit), CLINT at 0x02000000 (mtimecmp hart 0 at 0x02004000, mtime at
 * 0x0200BFF8), NS16550A UART at 0x10000000 (console).
 *
 * Program contract: define `int main(void)`; it runs in M-mode with interrupts disabled and its
 * return value is the exit status (0 = self-check passed). Traps go to rt_trap_vector (crt0.S),
 * which saves the integer registers in a struct rt_trap_frame on a dedicated trap stack and calls
 * rt_trap_handler(); the weak default reports the unexpected trap and exits with RT_EXIT_TRAP.
 */
#ifndef RT_H
#define RT_H

#include <stdint.h>

typedef unsigned long rt_reg_t; /* XLEN bits on both ILP32 and LP64 */

/* Layout shared with crt0.S: x[0..31] (x[0] unused), then the CSRs. */
struct rt_trap_frame {
	rt_reg_t x[32];
	rt_reg_t mepc;    /* written back to mepc before mret */
	rt_reg_t mstatus; /* written back to mstatus before mret */
	rt_reg_t mcause;
	rt_reg_t mtval;
};

#define RT_MCAUSE_INTERRUPT ((rt_reg_t)1 << (sizeof(rt_reg_t) * 8 - 1))
#define RT_CAUSE_ILLEGAL_INSN 2u
#define RT_CAUSE_BREAKPOINT 3u
#define RT_CAUSE_ECALL_U 8u
#define RT_CAUSE_ECALL_M 11u
#define RT_IRQ_M_TIMER 7u

#define RT_MSTATUS_MIE (1ul << 3)
#define RT_MSTATUS_MPIE (1ul << 7)
#define RT_MSTATUS_MPP (3ul << 11)
#define RT_MIE_MTIE (1ul << 7)

/* Exit statuses the runtime itself uses (programs use small positive codes). */
#define RT_EXIT_TRAP 0x7e  /* an unexpected trap reached the default handler */
#define RT_EXIT_ABORT 0x7d /* abort() / a libc-internal _exit with status 0 on a failure path */

#define RT_CLINT_MTIMECMP0 0x02004000ul
#define RT_CLINT_MTIME 0x0200BFF8ul

#define rt_csr_read(csr)                                                 \
	({                                                                   \
		rt_reg_t v_;                                                     \
		__asm__ volatile("csrr %0, " #csr : "=r"(v_));                  \
		v_;                                                              \
	})
#define rt_csr_write(csr, val) __asm__ volatile("csrw " #csr ", %0" ::"rK"((rt_reg_t)(val)))
#define rt_csr_set(csr, val) __asm__ volatile("csrs " #csr ", %0" ::"rK"((rt_reg_t)(val)))
#define rt_csr_clear(csr, val) __asm__ volatile("csrc " #csr ", %0" ::"rK"((rt_reg_t)(val)))

/* Exit QEMU through the test device: 0 -> pass (0x5555), else (code << 16) | 0x3333. */
__attribute__((noreturn)) void rt_exit(int code);

/* Console (polled 16550 transmit). */
void rt_putc(char c);
void rt_puts(const char *s);
void rt_putdec(uint64_t v);
void rt_puthex(uint64_t v);

/* Retired-instruction count (minstret; under QEMU -icount it counts executed instructions). */
uint64_t rt_instret(void);

/* CLINT timer of hart 0 (64-bit also on RV32: the halves are handled carefully). */
uint64_t rt_mtime(void);
void rt_set_mtimecmp(uint64_t t);

/* Called by rt_trap_vector; programs that take traps define their own (strong) version. */
void rt_trap_handler(struct rt_trap_frame *f);

/* Deterministic pseudo-random numbers (xorshift32; state must be non-zero). */
static inline uint32_t rt_xorshift32(uint32_t *s)
{
	uint32_t x = *s;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*s = x;
	return x;
}

/* Keep a value opaque to the optimiser (so work is not folded at compile time). */
#define RT_OPAQUE(v) __asm__ volatile("" : "+r"(v))

#endif

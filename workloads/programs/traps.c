/*
 * traps: privilege changes and trap-driven control flow. M-mode main installs a handler, arms the
 * CLINT timer and drops to U-mode (mret with mstatus.MPP = U). The U-mode loop mixes ordinary
 * computation with
 *  - `ecall` system calls (mcause 8) served by the M-mode handler, which returns a value in a0
 *    and resumes at mepc + 4;
 *  - a custom instruction in the custom-0 opcode space (`.insn r 0x0b, funct3, 0, rd, rs1, rs2`)
 *    that the hart does not implement: the illegal-instruction handler (mcause 2) decodes it,
 *    emulates it (funct3 0: rd = rotl32(rs1, 7) + rs2; funct3 1: rd = popcount(rs1) * rs2 + 1)
 *    and skips it with mepc += 4;
 *  - the 16-bit all-zero instruction (defined illegal), skipped with mepc += 2;
 *  - `rdtime` with mcounteren.TM = 0: illegal in U-mode, emulated from the CLINT's mtime, as SBI
 *    firmware does;
 *  - `ebreak` (mcause 3, compressed to c.ebreak), skipped by its length;
 *  - machine timer interrupts (mcause 2^(XLEN-1) + 7) every INTERVAL mtime ticks.
 * Every trap returns with `mret`. A few traps are also taken from M-mode (ecall, mcause 11, and the
 * custom instruction) before the switch to U-mode.
 *
 * Determinism: with QEMU's -icount shift=0 (see workloads/build.ts) mtime advances one tick per
 * 100 instructions, so the interrupts arrive at the same instruction counts in every run. The
 * self-check depends only on the synchronous traps: the interrupt count must be non-zero, and
 * the emulated time must never go backwards.
 *
 * Self-check (in the SYS_EXIT handler): the accumulated value and the counts of each trap kind
 * against constants worked out by workloads/reference.ts.
 */
#include <stdint.h>
#include "rt.h"

#define ITER 320
#define WORK 48
#define INTERVAL 25 /* mtime ticks (10 MHz): 2500 instructions under -icount shift=0 */
#define SUM_LEN 64

#define EXPECT_ACC 0x8b414caau

enum { SYS_EXIT, SYS_MIX, SYS_SUM };

struct kernel {
	uint32_t acc;
	uint32_t ecalls;
	uint32_t custom;
	uint32_t c_illegal;
	uint32_t rdtime;
	uint32_t breaks;
	uint32_t ticks;
	uint32_t m_ecalls;
	uint64_t next_tick;
};

static struct kernel k;
static uint8_t user_buf[SUM_LEN];
static uint8_t user_stack[8192] __attribute__((aligned(16)));

static inline uint32_t rotl32(uint32_t x, unsigned r)
{
	return (x << r) | (x >> ((32u - r) & 31u));
}

static uint32_t popcount32(uint32_t x)
{
	uint32_t n = 0;
	while (x != 0) {
		x &= x - 1u;
		n++;
	}
	return n;
}

static uint16_t read_half(rt_reg_t addr)
{
	return *(volatile const uint16_t *)addr;
}

static void set_reg(struct rt_trap_frame *f, unsigned rd, uint32_t v)
{
	if (rd != 0)
		f->x[rd] = (rt_reg_t)(long)(int32_t)v; /* sign-extended, like RV64 *W results */
}

static void emulate_illegal(struct rt_trap_frame *f)
{
	uint16_t lo = read_half(f->mepc);
	if ((lo & 3u) != 3u) {
		/* 16-bit: only the all-zero instruction is expected. */
		if (lo != 0)
			rt_exit(40);
		k.c_illegal++;
		f->mepc += 2;
		return;
	}
	uint32_t insn = lo | ((uint32_t)read_half(f->mepc + 2) << 16);
	unsigned opcode = insn & 0x7fu, rd = (insn >> 7) & 31u, funct3 = (insn >> 12) & 7u;
	unsigned rs1 = (insn >> 15) & 31u, rs2 = (insn >> 20) & 31u;
	uint32_t a = (uint32_t)f->x[rs1], b = (uint32_t)f->x[rs2];
	if (opcode == 0x0bu && funct3 == 0) {
		set_reg(f, rd, rotl32(a, 7) + b);
		k.custom++;
	} else if (opcode == 0x0bu && funct3 == 1) {
		set_reg(f, rd, popcount32(a) * b + 1u);
		k.custom++;
	} else if (opcode == 0x73u && funct3 == 2 && rs1 == 0 && (insn >> 20) == 0xc01u) {
		/* csrrs rd, time, x0 (rdtime): the low XLEN bits of mtime. */
		if (rd != 0)
			f->x[rd] = (rt_reg_t)rt_mtime();
		k.rdtime++;
	} else {
		rt_puts("traps: unexpected illegal instruction ");
		rt_puthex(insn);
		rt_putc('\n');
		rt_exit(41);
	}
	f->mepc += 4;
}

static void sys_exit(uint32_t acc)
{
	const uint32_t iter = ITER;
	int bad = acc != EXPECT_ACC || k.ecalls != iter + iter / 8 + 1 || k.custom != iter + iter / 4 + 1 ||
		  k.c_illegal != iter / 8 || k.rdtime != iter / 16 || k.breaks != iter / 16 || k.m_ecalls != 1 ||
		  k.ticks == 0;
	rt_puts("traps: ticks ");
	rt_putdec(k.ticks);
	rt_putc('\n');
	if (bad) {
		rt_puts("traps: acc ");
		rt_puthex(acc);
		rt_puts(" ecalls ");
		rt_putdec(k.ecalls);
		rt_puts(" custom ");
		rt_putdec(k.custom);
		rt_puts(" c.illegal ");
		rt_putdec(k.c_illegal);
		rt_puts(" rdtime ");
		rt_putdec(k.rdtime);
		rt_puts(" breaks ");
		rt_putdec(k.breaks);
		rt_putc('\n');
		rt_exit(2);
	}
	rt_exit(0);
}

void rt_trap_handler(struct rt_trap_frame *f)
{
	rt_reg_t cause = f->mcause;
	if ((cause & RT_MCAUSE_INTERRUPT) != 0) {
		if ((cause & ~RT_MCAUSE_INTERRUPT) != RT_IRQ_M_TIMER)
			rt_exit(30);
		k.ticks++;
		k.next_tick += INTERVAL;
		rt_set_mtimecmp(k.next_tick);
		return; /* mepc is the interrupted instruction: resume it */
	}
	switch (cause) {
	case RT_CAUSE_ECALL_U: {
		rt_reg_t a0 = f->x[10], a1 = f->x[11];
		k.ecalls++;
		switch (f->x[17]) { /* a7 */
		case SYS_EXIT:
			sys_exit((uint32_t)a0);
			break;
		case SYS_MIX:
			k.acc = rotl32(k.acc, 5) ^ (uint32_t)a0;
			f->x[10] = k.acc;
			break;
		case SYS_SUM: {
			uint32_t s = 0;
			for (rt_reg_t i = 0; i < a1; i++)
				s += ((const uint8_t *)a0)[i];
			f->x[10] = s;
			break;
		}
		default:
			rt_exit(31);
		}
		f->mepc += 4;
		break;
	}
	case RT_CAUSE_ECALL_M:
		k.m_ecalls++;
		f->x[10] = f->x[10] * 2u + 1u;
		f->mepc += 4;
		break;
	case RT_CAUSE_ILLEGAL_INSN:
		emulate_illegal(f);
		break;
	case RT_CAUSE_BREAKPOINT:
		k.breaks++;
		f->mepc += (read_half(f->mepc) & 3u) == 3u ? 4 : 2;
		break;
	default:
		rt_puts("traps: unexpected mcause ");
		rt_puthex(cause);
		rt_putc('\n');
		rt_exit(32);
	}
}

/* ---- U-mode side ---- */

static inline rt_reg_t syscall2(rt_reg_t n, rt_reg_t a0, rt_reg_t a1)
{
	register rt_reg_t r_a7 __asm__("a7") = n;
	register rt_reg_t r_a0 __asm__("a0") = a0;
	register rt_reg_t r_a1 __asm__("a1") = a1;
	__asm__ volatile("ecall" : "+r"(r_a0) : "r"(r_a7), "r"(r_a1) : "memory");
	return r_a0;
}

static inline uint32_t custom0(uint32_t a, uint32_t b)
{
	rt_reg_t r;
	__asm__ volatile(".insn r 0x0b, 0, 0, %0, %1, %2" : "=r"(r) : "r"((rt_reg_t)a), "r"((rt_reg_t)b));
	return (uint32_t)r;
}

static inline uint32_t custom1(uint32_t a, uint32_t b)
{
	rt_reg_t r;
	__asm__ volatile(".insn r 0x0b, 1, 0, %0, %1, %2" : "=r"(r) : "r"((rt_reg_t)a), "r"((rt_reg_t)b));
	return (uint32_t)r;
}

__attribute__((noreturn, noinline)) static void user_main(void)
{
	uint32_t x = 0x01234567u, acc = 0;
	rt_reg_t last_time = 0;
	for (uint32_t i = 0; i < ITER; i++) {
		for (int j = 0; j < WORK; j++)
			x = x * 1664525u + 1013904223u;
		acc += (uint32_t)syscall2(SYS_MIX, x, 0);
		acc ^= custom0(x, acc);
		if ((i & 3u) == 0)
			acc += custom1(x, i);
		if ((i & 7u) == 0) {
			__asm__ volatile(".2byte 0x0000"); /* c.illegal-space: skipped by the handler */
			acc += (uint32_t)syscall2(SYS_SUM, (rt_reg_t)user_buf, SUM_LEN);
		}
		if ((i & 15u) == 0) {
			rt_reg_t t;
			__asm__ volatile("rdtime %0" : "=r"(t));
			if (t < last_time)
				syscall2(SYS_EXIT, 0xbad, 0); /* time went backwards: fails the check */
			last_time = t;
			__asm__ volatile("ebreak");
			acc = rotl32(acc, 1);
		}
	}
	syscall2(SYS_EXIT, acc, 0);
	__builtin_unreachable();
}

__attribute__((noreturn)) static void enter_user(void (*entry)(void), void *stack_top)
{
	rt_csr_write(mepc, (rt_reg_t)entry);
	rt_csr_clear(mstatus, RT_MSTATUS_MPP); /* MPP = U */
	__asm__ volatile("mv sp, %0\n\tmret" ::"r"(stack_top) : "memory");
	__builtin_unreachable();
}

int main(void)
{
	for (int i = 0; i < SUM_LEN; i++)
		user_buf[i] = (uint8_t)(i * 37 + 11);

	/* Traps taken from M-mode: an ecall and the custom instruction. */
	register rt_reg_t a0 __asm__("a0") = 20;
	__asm__ volatile("ecall" : "+r"(a0)::"memory");
	if (a0 != 41 || k.m_ecalls != 1)
		return 1;
	if (custom0(0x80000001u, 5) != 0xc5u || k.custom != 1)
		return 2;

	rt_csr_write(mcounteren, 0); /* U-mode rdtime traps */
	k.next_tick = rt_mtime() + INTERVAL;
	rt_set_mtimecmp(k.next_tick);
	rt_csr_set(mie, RT_MIE_MTIE);
	enter_user(user_main, user_stack + sizeof user_stack);
}

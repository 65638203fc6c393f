/* Runtime services: exit through the SiFive test device, polled UART output, timer access. */
#include "rt.h"

#define TEST_DEVICE ((volatile uint32_t *)0x00100000ul)
#define TEST_PASS 0x5555u
#define TEST_FAIL 0x3333u

#define UART_BASE ((volatile uint8_t *)0x10000000ul)
#define UART_THR 0
#define UART_LSR 5
#define UART_LSR_THRE 0x20u

void rt_putc(char c)
{
	while ((UART_BASE[UART_LSR] & UART_LSR_THRE) == 0) {
	}
	UART_BASE[UART_THR] = (uint8_t)c;
}

void rt_puts(const char *s)
{
	while (*s != '\0')
		rt_putc(*s++);
}

/* Decimal without division (RV32 would otherwise call libgcc's 64-bit __udivdi3). */
void rt_putdec(uint64_t v)
{
	static const uint64_t pow10[] = {
		10000000000000000000ull, 1000000000000000000ull, 100000000000000000ull,
		10000000000000000ull, 1000000000000000ull, 100000000000000ull, 10000000000000ull,
		1000000000000ull, 100000000000ull, 10000000000ull, 1000000000ull, 100000000ull,
		10000000ull, 1000000ull, 100000ull, 10000ull, 1000ull, 100ull, 10ull, 1ull,
	};
	int started = 0;
	for (unsigned i = 0; i < sizeof pow10 / sizeof pow10[0]; i++) {
		char d = '0';
		while (v >= pow10[i]) {
			v -= pow10[i];
			d++;
		}
		if (d != '0' || started || i == sizeof pow10 / sizeof pow10[0] - 1) {
			rt_putc(d);
			started = 1;
		}
	}
}

void rt_puthex(uint64_t v)
{
	rt_puts("0x");
	for (int shift = 60; shift >= 0; shift -= 4)
		rt_putc("0123456789abcdef"[(v >> shift) & 0xf]);
}

uint64_t rt_instret(void)
{
#if __riscv_xlen == 64
	return rt_csr_read(minstret);
#else
	uint32_t hi, lo;
	do {
		hi = rt_csr_read(minstreth);
		lo = rt_csr_read(minstret);
	} while (hi != rt_csr_read(minstreth));
	return ((uint64_t)hi << 32) | lo;
#endif
}

uint64_t rt_mtime(void)
{
#if __riscv_xlen == 64
	return *(volatile uint64_t *)RT_CLINT_MTIME;
#else
	volatile uint32_t *p = (volatile uint32_t *)RT_CLINT_MTIME;
	uint32_t hi, lo;
	do {
		hi = p[1];
		lo = p[0];
	} while (hi != p[1]);
	return ((uint64_t)hi << 32) | lo;
#endif
}

void rt_set_mtimecmp(uint64_t t)
{
#if __riscv_xlen == 64
	*(volatile uint64_t *)RT_CLINT_MTIMECMP0 = t;
#else
	/* Never let the compare value pass through something smaller than both old and new. */
	volatile uint32_t *p = (volatile uint32_t *)RT_CLINT_MTIMECMP0;
	p[1] = 0xffffffffu;
	p[0] = (uint32_t)t;
	p[1] = (uint32_t)(t >> 32);
#endif
}

void rt_exit(int code)
{
	/* One status line; the minstret value is the executed-instruction count so far (see README). */
	uint64_t n = rt_instret();
	rt_puts(code == 0 ? "[rt] pass" : "[rt] FAIL");
	rt_puts(" status=");
	rt_putdec((uint64_t)(uint32_t)code);
	rt_puts(" minstret=");
	rt_putdec(n);
	rt_putc('\n');
	uint32_t status = (uint32_t)code & 0xffffu;
	if (code != 0 && status == 0)
		status = RT_EXIT_ABORT; /* a failure must never look like a pass */
	*TEST_DEVICE = code == 0 ? TEST_PASS : (status << 16) | TEST_FAIL;
	for (;;) {
	}
}

/* picolibc's exit() and abort() end here. */
void _exit(int status)
{
	rt_exit(status);
}

__attribute__((weak)) void rt_trap_handler(struct rt_trap_frame *f)
{
	rt_puts("[rt] unexpected trap mcause=");
	rt_puthex(f->mcause);
	rt_puts(" mepc=");
	rt_puthex(f->mepc);
	rt_puts(" mtval=");
	rt_puthex(f->mtval);
	rt_putc('\n');
	rt_exit(RT_EXIT_TRAP);
}

/*
 * recursion: towers of Hanoi (11 discs, 2047 moves), naive doubly recursive Fibonacci, the
 * Ackermann function A(2, n) and A(3, 4), and the recursive integer-partition count p(n, k).
 * Deep call/return nesting (Ackermann nests over 120 calls deep), calls whose return addresses
 * pile up, and self tail calls that GCC turns into loops.
 *
 * Self-check: closed forms where they exist (2^11 - 1 moves, A(2, n) = 2n + 3, A(3, 4) = 125),
 * known values (fib(18) = 2584, p(22) = 1002) and the move-sequence checksum worked out by
 * workloads/reference.ts.
 */
#include <stdint.h>
#include "rt.h"

#define EXPECT_HANOI_SUM 0x5f9b3a6bu

static uint32_t hanoi_moves;
static uint32_t hanoi_sum;

__attribute__((noinline)) static void hanoi(int n, int from, int to, int via)
{
	if (n == 0)
		return;
	hanoi(n - 1, from, via, to);
	hanoi_moves++;
	hanoi_sum = hanoi_sum * 31u + (uint32_t)(n * 9 + from * 3 + to);
	hanoi(n - 1, via, to, from);
}

__attribute__((noinline)) static uint32_t fib(uint32_t n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static uint32_t ack_calls;

__attribute__((noinline)) static uint32_t ackermann(uint32_t m, uint32_t n)
{
	ack_calls++;
	if (m == 0)
		return n + 1;
	if (n == 0)
		return ackermann(m - 1, 1);
	return ackermann(m - 1, ackermann(m, n - 1));
}

/* Number of partitions of n into parts of size at most k. */
__attribute__((noinline)) static uint32_t partitions(int n, int k)
{
	if (n == 0)
		return 1;
	if (n < 0 || k == 0)
		return 0;
	return partitions(n - k, k) + partitions(n, k - 1);
}

int main(void)
{
	int discs = 11;
	uint32_t fn = 18, m = 3, an = 4;
	int pn = 22;
	RT_OPAQUE(discs);
	RT_OPAQUE(fn);
	RT_OPAQUE(m);
	RT_OPAQUE(an);
	RT_OPAQUE(pn);

	hanoi(discs, 0, 2, 1);
	if (hanoi_moves != (1u << 11) - 1)
		return 1;
	if (hanoi_sum != EXPECT_HANOI_SUM) {
		rt_puts("recursion: hanoi checksum ");
		rt_puthex(hanoi_sum);
		rt_putc('\n');
		return 2;
	}

	if (fib(fn) != 2584)
		return 3;

	for (uint32_t n = 0; n < 24; n += 3) {
		uint32_t two = m - 1;
		RT_OPAQUE(two);
		if (ackermann(two, n) != 2 * n + 3)
			return 4;
	}
	if (ackermann(m, an) != 125)
		return 5;

	if (partitions(pn, pn) != 1002)
		return 6;
	return 0;
}

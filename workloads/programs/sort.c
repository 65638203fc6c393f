/*
 * sort: quicksort (median-of-three pivot, recursion on the smaller side, loop on the larger,
 * insertion sort for short ranges) on 1500 pseudo-random words, and a plain insertion sort of 192
 * words. Data-dependent forward branches in the partition loops, backward branches of the inner
 * loops, recursive calls and returns of varying depth.
 *
 * Self-check: both outputs ascending, the multiset preserved (sum and xor), and the
 * order-sensitive checksum sum((i + 1) * a[i]) mod 2^32 equal to the constant worked out
 * independently (workloads/reference.ts).
 */
#include <stdint.h>
#include "rt.h"

#define N_QUICK 1500
#define N_INSERT 192
#define CUTOFF 12

#define EXPECT_QUICK 0xa53878b5u
#define EXPECT_INSERT 0x048042cdu

static uint32_t quick_data[N_QUICK];
static uint32_t insert_data[N_INSERT];

static void insertion_sort(uint32_t *a, int n)
{
	for (int i = 1; i < n; i++) {
		uint32_t v = a[i];
		int j = i - 1;
		while (j >= 0 && a[j] > v) {
			a[j + 1] = a[j];
			j--;
		}
		a[j + 1] = v;
	}
}

static inline void swap(uint32_t *a, int i, int j)
{
	uint32_t t = a[i];
	a[i] = a[j];
	a[j] = t;
}

__attribute__((noinline)) static void quicksort(uint32_t *a, int lo, int hi)
{
	while (hi - lo + 1 > CUTOFF) {
		int mid = lo + (hi - lo) / 2;
		/* Median of three into a[mid], then park the pivot at a[hi - 1]. */
		if (a[mid] < a[lo])
			swap(a, mid, lo);
		if (a[hi] < a[lo])
			swap(a, hi, lo);
		if (a[hi] < a[mid])
			swap(a, hi, mid);
		swap(a, mid, hi - 1);
		uint32_t pivot = a[hi - 1];
		int i = lo, j = hi - 1;
		for (;;) {
			while (a[++i] < pivot) {
			}
			while (pivot < a[--j]) {
			}
			if (i >= j)
				break;
			swap(a, i, j);
		}
		swap(a, i, hi - 1);
		if (i - lo < hi - i) {
			quicksort(a, lo, i - 1);
			lo = i + 1;
		} else {
			quicksort(a, i + 1, hi);
			hi = i - 1;
		}
	}
	insertion_sort(a + lo, hi - lo + 1);
}

static void fill(uint32_t *a, int n, uint32_t seed)
{
	uint32_t s = seed;
	for (int i = 0; i < n; i++)
		a[i] = rt_xorshift32(&s);
}

static int check(const uint32_t *a, int n, uint32_t sum0, uint32_t xor0, uint32_t expect, int code)
{
	uint32_t sum = 0, x = 0, weighted = 0;
	for (int i = 0; i < n; i++) {
		if (i > 0 && a[i - 1] > a[i])
			return code;
		sum += a[i];
		x ^= a[i];
		weighted += (uint32_t)(i + 1) * a[i];
	}
	if (sum != sum0 || x != xor0)
		return code + 1;
	if (weighted != expect) {
		rt_puts("sort: checksum ");
		rt_puthex(weighted);
		rt_putc('\n');
		return code + 2;
	}
	return 0;
}

static void totals(const uint32_t *a, int n, uint32_t *sum, uint32_t *x)
{
	*sum = 0;
	*x = 0;
	for (int i = 0; i < n; i++) {
		*sum += a[i];
		*x ^= a[i];
	}
}

int main(void)
{
	uint32_t sum, x;
	int r;

	fill(quick_data, N_QUICK, 0x12345678u);
	totals(quick_data, N_QUICK, &sum, &x);
	quicksort(quick_data, 0, N_QUICK - 1);
	if ((r = check(quick_data, N_QUICK, sum, x, EXPECT_QUICK, 10)) != 0)
		return r;

	fill(insert_data, N_INSERT, 0x9e3779b9u);
	totals(insert_data, N_INSERT, &sum, &x);
	insertion_sort(insert_data, N_INSERT);
	if ((r = check(insert_data, N_INSERT, sum, x, EXPECT_INSERT, 20)) != 0)
		return r;
	return 0;
}

/*
 * matrix: dense kernels with regular, counted loops. Integer matrix multiply C = A * B (24 x 24)
 * in i-j-k order and again in i-k-j order over the transposed operand, matrix-vector products,
 * a strided column walk, dot products of 16-bit vectors into 64-bit sums, and a small
 * double-precision part (dot product, axpy and a 6 x 6 product): FPU instructions on RV64GC,
 * calls into libgcc's soft-float routines on RV32IMC.
 *
 * Self-check: the two products agree, the double-precision results are exact (all values are
 * small dyadic fractions) and equal their integer-scaled counterparts, and the checksums equal the
 * constants worked out by workloads/reference.ts.
 */
#include <stdint.h>
#include "rt.h"

#define N 24
#define VLEN 256
#define DN 6
#define DV 64

#define EXPECT_MATMUL 0x9f57c6e0u
#define EXPECT_MATVEC 0x7207e209u
#define EXPECT_DOT 0xffffffff4a5001b0ull

static int32_t A[N][N], B[N][N], C1[N][N], C2[N][N], BT[N][N];
static int32_t vec[N], mv[N], mvt[N];
static int16_t va[VLEN], vb[VLEN];
static double da[DV], db[DV], dm1[DN][DN], dm2[DN][DN], dm3[DN][DN];

__attribute__((noinline)) static void matmul_ijk(int32_t c[N][N], int32_t a[N][N], int32_t b[N][N])
{
	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++) {
			int32_t s = 0;
			for (int k = 0; k < N; k++)
				s += a[i][k] * b[k][j];
			c[i][j] = s;
		}
}

__attribute__((noinline)) static void transpose(int32_t t[N][N], int32_t a[N][N])
{
	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++)
			t[j][i] = a[i][j];
}

/* c = a * b with b given transposed: both operands walked along rows. */
__attribute__((noinline)) static void matmul_bt(int32_t c[N][N], int32_t a[N][N], int32_t bt[N][N])
{
	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++) {
			const int32_t *ra = a[i], *rb = bt[j];
			int32_t s = 0;
			for (int k = 0; k < N; k++)
				s += ra[k] * rb[k];
			c[i][j] = s;
		}
}

__attribute__((noinline)) static void matvec(int32_t *y, int32_t m[N][N], const int32_t *x)
{
	for (int i = 0; i < N; i++) {
		int32_t s = 0;
		for (int j = 0; j < N; j++)
			s += m[i][j] * x[j];
		y[i] = s;
	}
}

/* y = m^T x, walking m by columns (stride N words). */
__attribute__((noinline)) static void matvec_t(int32_t *y, int32_t m[N][N], const int32_t *x)
{
	for (int j = 0; j < N; j++) {
		int32_t s = 0;
		for (int i = 0; i < N; i++)
			s += m[i][j] * x[i];
		y[j] = s;
	}
}

__attribute__((noinline)) static int64_t dot16(const int16_t *a, const int16_t *b, int n)
{
	int64_t s = 0;
	for (int i = 0; i < n; i++)
		s += (int32_t)a[i] * b[i];
	return s;
}

__attribute__((noinline)) static double ddot(const double *a, const double *b, int n)
{
	double s = 0.0;
	for (int i = 0; i < n; i++)
		s += a[i] * b[i];
	return s;
}

__attribute__((noinline)) static void daxpy(double *y, double alpha, const double *x, int n)
{
	for (int i = 0; i < n; i++)
		y[i] += alpha * x[i];
}

__attribute__((noinline)) static void dmatmul(double c[DN][DN], double a[DN][DN], double b[DN][DN])
{
	for (int i = 0; i < DN; i++)
		for (int j = 0; j < DN; j++) {
			double s = 0.0;
			for (int k = 0; k < DN; k++)
				s += a[i][k] * b[k][j];
			c[i][j] = s;
		}
}

static uint32_t mix_matrix(int32_t m[N][N])
{
	uint32_t h = 0;
	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++)
			h = h * 33u + (uint32_t)m[i][j];
	return h;
}

static int32_t small(uint32_t *s)
{
	return (int32_t)(rt_xorshift32(s) % 201u) - 100; /* -100 .. 100 */
}

int main(void)
{
	uint32_t s = 0x2545f491u;

	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++)
			A[i][j] = small(&s);
	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++)
			B[i][j] = small(&s);
	for (int i = 0; i < N; i++)
		vec[i] = small(&s);
	for (int i = 0; i < VLEN; i++) {
		va[i] = (int16_t)(small(&s) * 300);
		vb[i] = (int16_t)(small(&s) * 300);
	}

	matmul_ijk(C1, A, B);
	transpose(BT, B);
	matmul_bt(C2, A, BT);
	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++)
			if (C1[i][j] != C2[i][j])
				return 1;
	uint32_t hm = mix_matrix(C1);
	if (hm != EXPECT_MATMUL) {
		rt_puts("matrix: matmul checksum ");
		rt_puthex(hm);
		rt_putc('\n');
		return 2;
	}

	/* (A B) x == A (B x), and (A^T)^T walk: y = A^T x computed by columns equals BT-style rows. */
	int32_t bx[N];
	matvec(mv, C1, vec);
	matvec(bx, B, vec);
	matvec(mvt, A, bx);
	for (int i = 0; i < N; i++)
		if (mv[i] != mvt[i])
			return 3;
	matvec_t(mvt, A, vec);
	uint32_t hv = 0;
	for (int i = 0; i < N; i++)
		hv = hv * 33u + (uint32_t)mv[i] + 7u * (uint32_t)mvt[i];
	if (hv != EXPECT_MATVEC) {
		rt_puts("matrix: matvec checksum ");
		rt_puthex(hv);
		rt_putc('\n');
		return 4;
	}

	int64_t d = dot16(va, vb, VLEN);
	int64_t d2 = 0;
	for (int i = 0; i < VLEN; i++)
		d2 += (int64_t)va[i] * vb[i];
	if (d != d2 || (uint64_t)d != EXPECT_DOT) {
		rt_puts("matrix: dot ");
		rt_puthex((uint64_t)d);
		rt_putc('\n');
		return 5;
	}

	/* Doubles: values k / 8 with |k| <= 100, so every product and sum below is exact. */
	int64_t iref = 0;
	for (int i = 0; i < DV; i++) {
		int32_t x = small(&s), y = small(&s);
		da[i] = x / 8.0;
		db[i] = y / 8.0;
		iref += (int64_t)x * y;
	}
	if (ddot(da, db, DV) * 64.0 != (double)iref)
		return 6;
	daxpy(db, 0.5, da, DV); /* db = (2y + x) / 16 */
	int64_t isum = 0;
	double dsum = 0.0;
	for (int i = 0; i < DV; i++) {
		dsum += db[i];
		isum += (int64_t)(db[i] * 16.0);
	}
	if (dsum * 16.0 != (double)isum)
		return 7;
	for (int i = 0; i < DN; i++)
		for (int j = 0; j < DN; j++) {
			dm1[i][j] = A[i][j] / 4.0;
			dm2[i][j] = B[i][j] / 4.0;
		}
	dmatmul(dm3, dm1, dm2);
	for (int i = 0; i < DN; i++)
		for (int j = 0; j < DN; j++) {
			int32_t e = 0;
			for (int k = 0; k < DN; k++)
				e += A[i][k] * B[k][j];
			if (dm3[i][j] * 16.0 != (double)e)
				return 8;
		}
	return 0;
}

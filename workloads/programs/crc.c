/*
 * crc: checksum loops over a 2 KiB pseudo-random buffer.
 *  - CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320) bit by bit: a tight inner loop of 8
 *    iterations per byte with a data-dependent conditional;
 *  - the 256-entry table built at run time, then table-driven CRC-32 fed in chunks of varying
 *    length (incremental API, a call per chunk);
 *  - CRC-16/CCITT-FALSE bit by bit (MSB first) and Adler-32 (divisions by 65521).
 *
 * Self-check: the standard check values of "123456789" (CRC-32 0xCBF43926,
 * CRC-16/CCITT-FALSE 0x29B1, Adler-32 0x091E01DE), the bitwise and table-driven CRC-32 agree on
 * the buffer, and the buffer results equal the constants worked out by workloads/reference.ts.
 */
#include <stddef.h>
#include <stdint.h>
#include "rt.h"

#define BUF 2048

#define EXPECT_CRC32 0x24b3c24eu
#define EXPECT_CRC16 0x0000bfafu
#define EXPECT_ADLER 0x57ecebd4u

static uint8_t buf[BUF];
static uint32_t table[256];

__attribute__((noinline)) static uint32_t crc32_bitwise(uint32_t crc, const uint8_t *p, size_t n)
{
	crc = ~crc;
	for (size_t i = 0; i < n; i++) {
		crc ^= p[i];
		for (int b = 0; b < 8; b++) {
			if (crc & 1u)
				crc = (crc >> 1) ^ 0xEDB88320u;
			else
				crc >>= 1;
		}
	}
	return ~crc;
}

static void crc32_make_table(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int b = 0; b < 8; b++)
			c = (c & 1u) ? (c >> 1) ^ 0xEDB88320u : c >> 1;
		table[i] = c;
	}
}

__attribute__((noinline)) static uint32_t crc32_table(uint32_t crc, const uint8_t *p, size_t n)
{
	crc = ~crc;
	while (n-- > 0)
		crc = table[(crc ^ *p++) & 0xffu] ^ (crc >> 8);
	return ~crc;
}

__attribute__((noinline)) static uint16_t crc16_ccitt(const uint8_t *p, size_t n)
{
	uint16_t crc = 0xffffu;
	for (size_t i = 0; i < n; i++) {
		crc ^= (uint16_t)(p[i] << 8);
		for (int b = 0; b < 8; b++)
			crc = (crc & 0x8000u) ? (uint16_t)((crc << 1) ^ 0x1021u) : (uint16_t)(crc << 1);
	}
	return crc;
}

__attribute__((noinline)) static uint32_t adler32(const uint8_t *p, size_t n)
{
	uint32_t a = 1, b = 0;
	while (n > 0) {
		size_t chunk = n < 3800 ? n : 3800; /* no overflow before the reduction */
		n -= chunk;
		while (chunk-- > 0) {
			a += *p++;
			b += a;
		}
		a %= 65521u;
		b %= 65521u;
	}
	return (b << 16) | a;
}

int main(void)
{
	static const uint8_t check[] = "123456789";
	uint32_t s = 0xdeadbeefu;

	crc32_make_table();
	if (crc32_bitwise(0, check, 9) != 0xCBF43926u || crc32_table(0, check, 9) != 0xCBF43926u)
		return 1;
	if (crc16_ccitt(check, 9) != 0x29B1u || adler32(check, 9) != 0x091E01DEu)
		return 2;

	for (int i = 0; i < BUF; i++)
		buf[i] = (uint8_t)(rt_xorshift32(&s) >> 24);

	uint32_t c1 = crc32_bitwise(0, buf, BUF);
	/* Incremental, in chunks of 1, 2, 3, ... bytes. */
	uint32_t c2 = 0;
	size_t off = 0;
	for (size_t len = 1; off < BUF; len++) {
		size_t n = BUF - off < len ? BUF - off : len;
		c2 = crc32_table(c2, buf + off, n);
		off += n;
	}
	uint16_t c16 = crc16_ccitt(buf, BUF);
	uint32_t ad = adler32(buf, BUF);
	if (c1 != c2)
		return 3;
	if (c1 != EXPECT_CRC32 || c16 != EXPECT_CRC16 || ad != EXPECT_ADLER) {
		rt_puts("crc: crc32 ");
		rt_puthex(c1);
		rt_puts(" crc16 ");
		rt_puthex(c16);
		rt_puts(" adler32 ");
		rt_puthex(ad);
		rt_putc('\n');
		return 4;
	}
	return 0;
}

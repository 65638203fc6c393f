/*
 * strings: string and hash processing with picolibc's string.h (strlen, strcmp, memcpy, memset,
 * strchr, strrchr). 500 pseudo-random words are generated into a character pool and inserted into
 * an open-addressing hash table (FNV-1a, linear probing) that counts duplicates; every word is
 * looked up again, then 500 mutated words (mostly misses); finally each word is reversed in place
 * and compared. Short, data-dependent loops over bytes, early-exit comparisons, probe chains of
 * varying length and calls into the C library.
 *
 * Self-check: distinct-word count, hit/miss counts and a checksum over the table contents and
 * lookups, against constants worked out by workloads/reference.ts.
 */
#include <stdint.h>
#include <string.h>
#include "rt.h"

#define WORDS 500
#define TABLE 1024 /* power of two, load factor < 0.5 */
#define POOL (WORDS * 12)

#define EXPECT_DISTINCT 476u
#define EXPECT_HITS 8u
#define EXPECT_CHECKSUM 0xcb79851cu

static char pool[POOL];
static const char *words[WORDS];
static const char *table[TABLE];
static uint32_t counts[TABLE];

static uint32_t fnv1a(const char *s)
{
	uint32_t h = 2166136261u;
	while (*s != '\0') {
		h ^= (uint8_t)*s++;
		h *= 16777619u;
	}
	return h;
}

/* Returns the slot holding s, or the empty slot where it would go. */
static uint32_t probe(const char *s, uint32_t *steps)
{
	uint32_t i = fnv1a(s) & (TABLE - 1);
	while (table[i] != NULL && strcmp(table[i], s) != 0) {
		i = (i + 1) & (TABLE - 1);
		(*steps)++;
	}
	return i;
}

static void reverse(char *s)
{
	size_t n = strlen(s);
	for (size_t i = 0, j = n - 1; n > 0 && i < j; i++, j--) {
		char t = s[i];
		s[i] = s[j];
		s[j] = t;
	}
}

int main(void)
{
	uint32_t seed = 0xc0ffee11u;
	char *p = pool;

	memset(table, 0, sizeof table);
	/* Words of 2..9 letters from a 7-letter alphabet, so that some repeat. */
	for (int w = 0; w < WORDS; w++) {
		uint32_t r = rt_xorshift32(&seed);
		int len = 2 + (int)(r % 8u);
		words[w] = p;
		for (int i = 0; i < len; i++)
			*p++ = "etaoinsrh"[rt_xorshift32(&seed) % 7u];
		*p++ = '\0';
	}

	uint32_t distinct = 0, steps = 0, checksum = 0;
	for (int w = 0; w < WORDS; w++) {
		uint32_t slot = probe(words[w], &steps);
		if (table[slot] == NULL) {
			table[slot] = words[w];
			distinct++;
		}
		counts[slot]++;
	}

	uint32_t hits = 0;
	char buf[16];
	for (int w = 0; w < WORDS; w++) {
		uint32_t slot = probe(words[w], &steps);
		if (table[slot] == NULL || counts[slot] == 0)
			return 1; /* every inserted word must be found */
		checksum = checksum * 31u + slot * 7u + counts[slot];
		/* Mutate: replace the last letter with one outside the alphabet or append one. */
		size_t n = strlen(words[w]);
		memcpy(buf, words[w], n + 1);
		if ((w & 1) != 0) {
			buf[n - 1] = 'h';
		} else {
			buf[n] = 'e';
			buf[n + 1] = '\0';
		}
		uint32_t s2 = probe(buf, &steps);
		if (table[s2] != NULL) {
			hits++;
			checksum ^= s2;
		}
	}

	/* Reverse every word in place; a word equals its reverse iff it is a palindrome. */
	uint32_t palindromes = 0, vowels = 0;
	for (int w = 0; w < WORDS; w++) {
		size_t n = strlen(words[w]);
		memcpy(buf, words[w], n + 1);
		reverse((char *)words[w]);
		if (strcmp(buf, words[w]) == 0)
			palindromes++;
		const char *first_e = strchr(words[w], 'e');
		const char *last_a = strrchr(words[w], 'a');
		if (first_e != NULL)
			vowels += (uint32_t)(first_e - words[w]) + 1u;
		if (last_a != NULL)
			vowels += 100u * ((uint32_t)(last_a - words[w]) + 1u);
	}
	checksum += palindromes * 0x10001u + vowels * 3u + steps;

	if (distinct != EXPECT_DISTINCT || hits != EXPECT_HITS || checksum != EXPECT_CHECKSUM) {
		rt_puts("strings: distinct ");
		rt_putdec(distinct);
		rt_puts(" hits ");
		rt_putdec(hits);
		rt_puts(" checksum ");
		rt_puthex(checksum);
		rt_putc('\n');
		return 2;
	}
	return 0;
}

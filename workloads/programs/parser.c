/*
 * parser: a recursive-descent parser and evaluator of integer expressions
 *   expr := term (('+' | '-') term)*   term := factor (('*' | '/' | '%') factor)*
 *   factor := number | '(' expr ')' | '-' factor
 * over 150 pseudo-random expressions, themselves produced by a recursive generator. Errors
 * (division by zero, INT32_MIN / -1, syntax errors injected into every fifth expression, and a
 * nesting guard at depth 48) abandon the whole recursion with longjmp back to the setjmp in
 * evaluate(): returns that do not match their calls, which is what a trace encoder's
 * implicit-return stack must cope with. Also mutual recursion (expr -> term -> factor -> expr)
 * and byte-wise scanning.
 *
 * Self-check: the number of each error kind and a checksum of the values against the constants
 * worked out by workloads/reference.ts (which implements the same generator and grammar).
 */
#include <setjmp.h>
#include <stdint.h>
#include "rt.h"

#define COUNT 150
#define TEXT 512
#define MAX_DEPTH 48

#define EXPECT_SUM 0x6eade6d5u
#define EXPECT_OK 116u
#define EXPECT_SYNTAX 29u
#define EXPECT_DIV0 5u

enum { ERR_SYNTAX = 1, ERR_DIV0 = 2, ERR_OVERFLOW = 3, ERR_DEPTH = 4 };

static jmp_buf on_error;
static const char *cur;

static char text[TEXT];
static char *out;
static uint32_t seed = 0x0badf00du;

static uint32_t rnd(void)
{
	return rt_xorshift32(&seed);
}

__attribute__((noreturn)) static void fail(int code)
{
	longjmp(on_error, code);
}

static int32_t parse_expr(int depth);

static void skip_spaces(void)
{
	while (*cur == ' ')
		cur++;
}

__attribute__((noinline)) static int32_t parse_factor(int depth)
{
	if (depth > MAX_DEPTH)
		fail(ERR_DEPTH);
	skip_spaces();
	char c = *cur;
	if (c == '(') {
		cur++;
		int32_t v = parse_expr(depth + 1);
		skip_spaces();
		if (*cur != ')')
			fail(ERR_SYNTAX);
		cur++;
		return v;
	}
	if (c == '-') {
		cur++;
		return (int32_t)(0u - (uint32_t)parse_factor(depth + 1));
	}
	if (c >= '0' && c <= '9') {
		uint32_t v = 0;
		while (*cur >= '0' && *cur <= '9')
			v = v * 10u + (uint32_t)(*cur++ - '0');
		return (int32_t)v;
	}
	fail(ERR_SYNTAX);
}

__attribute__((noinline)) static int32_t parse_term(int depth)
{
	int32_t v = parse_factor(depth);
	for (;;) {
		skip_spaces();
		char op = *cur;
		if (op != '*' && op != '/' && op != '%')
			return v;
		cur++;
		int32_t r = parse_factor(depth);
		if (op == '*') {
			v = (int32_t)((uint32_t)v * (uint32_t)r);
		} else {
			if (r == 0)
				fail(ERR_DIV0);
			if (v == INT32_MIN && r == -1)
				fail(ERR_OVERFLOW);
			v = op == '/' ? v / r : v % r;
		}
	}
}

__attribute__((noinline)) static int32_t parse_expr(int depth)
{
	int32_t v = parse_term(depth);
	for (;;) {
		skip_spaces();
		char op = *cur;
		if (op != '+' && op != '-')
			return v;
		cur++;
		int32_t r = parse_term(depth);
		v = (int32_t)(op == '+' ? (uint32_t)v + (uint32_t)r : (uint32_t)v - (uint32_t)r);
	}
}

/* Returns 0 and sets *value, or the error code. */
__attribute__((noinline)) static int evaluate(const char *s, int32_t *value)
{
	cur = s;
	int code = setjmp(on_error);
	if (code != 0)
		return code;
	int32_t v = parse_expr(0);
	skip_spaces();
	if (*cur != '\0')
		return ERR_SYNTAX;
	*value = v;
	return 0;
}

static void emit(char c)
{
	if (out < text + TEXT - 1)
		*out++ = c;
}

static void gen_number(void)
{
	uint32_t v = (rnd() & 3u) == 0 ? rnd() % 10u : rnd() % 1000u;
	char digits[4];
	int n = 0;
	do {
		digits[n++] = (char)('0' + v % 10u);
		v /= 10u;
	} while (v != 0);
	while (n > 0)
		emit(digits[--n]);
}

__attribute__((noinline)) static void gen_expr(int depth)
{
	uint32_t r = rnd() % 8u;
	if (depth >= 7 || r < 3) {
		gen_number();
	} else if (r == 3) {
		emit('(');
		gen_expr(depth + 1);
		emit(')');
	} else if (r == 4) {
		emit('-');
		gen_expr(depth + 1);
	} else {
		gen_expr(depth + 1);
		emit(' ');
		emit("+-*/%"[rnd() % 5u]);
		emit(' ');
		gen_expr(depth + 1);
	}
}

int main(void)
{
	uint32_t sum = 0, ok = 0, errors[5] = {0, 0, 0, 0, 0};

	for (uint32_t i = 0; i < COUNT; i++) {
		out = text;
		gen_expr(0);
		*out = '\0';
		uint32_t len = (uint32_t)(out - text);
		if (i % 5u == 4u && len > 0) {
			uint32_t pos = rnd() % len;
			char junk = (rnd() & 1u) != 0 ? ')' : '#';
			text[pos] = junk;
		}
		int32_t v = 0;
		int e = evaluate(text, &v);
		errors[e]++;
		if (e == 0) {
			ok++;
			sum = sum * 31u + (uint32_t)v;
		} else {
			sum += (uint32_t)e << 24;
		}
	}
	if (ok != EXPECT_OK || errors[ERR_SYNTAX] != EXPECT_SYNTAX || errors[ERR_DIV0] != EXPECT_DIV0 ||
	    sum != EXPECT_SUM || ok + errors[1] + errors[2] + errors[3] + errors[4] != COUNT) {
		rt_puts("parser: ok ");
		rt_putdec(ok);
		rt_puts(" syntax ");
		rt_putdec(errors[ERR_SYNTAX]);
		rt_puts(" div0 ");
		rt_putdec(errors[ERR_DIV0]);
		rt_puts(" overflow ");
		rt_putdec(errors[ERR_OVERFLOW]);
		rt_puts(" depth ");
		rt_putdec(errors[ERR_DEPTH]);
		rt_puts(" sum ");
		rt_puthex(sum);
		rt_putc('\n');
		return 1;
	}
	return 0;
}

/*
 * interp: a stack-machine bytecode interpreter run with three dispatch schemes over the same
 * bytecode: a `switch` that GCC compiles to a jump table (one shared indirect jump), a table of
 * handler function pointers (an indirect call and a return per bytecode), and "threaded" dispatch
 * with GCC's computed goto (an indirect jump at the end of every handler). The bytecode has
 * loops, conditional branches and CALL/RET (including recursion inside the VM).
 *
 * Bytecode programs: the total Collatz stopping time of 1..COLLATZ_LIMIT-1 (a subroutine called
 * from a loop), and fib(FIB_N) by naive recursion in bytecode.
 *
 * Self-check: the three dispatchers agree and equal the values worked out by
 * workloads/reference.ts.
 */
#include <stdint.h>
#include "rt.h"

#define COLLATZ_LIMIT 24
#define FIB_N 11

#define EXPECT_COLLATZ 233u
#define EXPECT_FIB 89u

enum op {
	OP_HALT, OP_PUSH, OP_LOAD, OP_STORE, OP_ADD, OP_SUB, OP_MUL, OP_AND, OP_SHR, OP_LT, OP_EQ,
	OP_JMP, OP_JZ, OP_JNZ, OP_DUP, OP_DROP, OP_SWAP, OP_CALL, OP_RET, OP_INC, OP_XOR,
	OP_COUNT
};

#define STACK 256
#define VARS 8

struct vm {
	const int32_t *code;
	int32_t pc;
	int32_t sp;  /* data stack: stack[0 .. sp-1] */
	int32_t rsp; /* return stack */
	int32_t running;
	int32_t stack[STACK];
	int32_t rstack[STACK];
	int32_t vars[VARS];
	uint32_t steps;
};

/* Variables of the Collatz program. */
enum { V_TOTAL, V_I, V_N, V_STEPS };

/* clang-format off */
static const int32_t collatz_prog[] = {
	/*  0 */ OP_PUSH, 0, OP_STORE, V_TOTAL, OP_PUSH, 1, OP_STORE, V_I,
	/*  8 loop: */ OP_LOAD, V_I, OP_PUSH, COLLATZ_LIMIT, OP_LT, OP_JZ, 29,
	/* 15 */ OP_LOAD, V_I, OP_CALL, 32, OP_LOAD, V_TOTAL, OP_ADD, OP_STORE, V_TOTAL,
	/* 24 */ OP_INC, V_I, OP_JMP, 8,
	/* 28 */ OP_HALT,
	/* 29 end: */ OP_LOAD, V_TOTAL, OP_HALT,
	/* 32 collatz(n): */ OP_STORE, V_N, OP_PUSH, 0, OP_STORE, V_STEPS,
	/* 38 c_loop: */ OP_LOAD, V_N, OP_PUSH, 1, OP_EQ, OP_JNZ, 77,
	/* 45 */ OP_LOAD, V_N, OP_PUSH, 1, OP_AND, OP_JZ, 66,
	/* 52 odd: n = 3n + 1 */ OP_LOAD, V_N, OP_DUP, OP_ADD, OP_LOAD, V_N, OP_ADD, OP_PUSH, 1, OP_ADD,
	/* 62 */ OP_STORE, V_N, OP_JMP, 73,
	/* 66 even: n = n >> 1 */ OP_LOAD, V_N, OP_PUSH, 1, OP_SHR, OP_STORE, V_N,
	/* 73 c_next: */ OP_INC, V_STEPS, OP_JMP, 38,
	/* 77 c_end: */ OP_LOAD, V_STEPS, OP_RET,
};

static const int32_t fib_prog[] = {
	/*  0 */ OP_PUSH, FIB_N, OP_CALL, 5, OP_HALT,
	/*  5 fib(n): */ OP_DUP, OP_PUSH, 2, OP_LT, OP_JNZ, 25,
	/* 11 */ OP_DUP, OP_PUSH, 1, OP_SUB, OP_CALL, 5,
	/* 17 */ OP_SWAP, OP_PUSH, 2, OP_SUB, OP_CALL, 5, OP_ADD,
	/* 24 */ OP_RET,
	/* 25 base: */ OP_RET,
};
/* clang-format on */

static void vm_reset(struct vm *vm, const int32_t *code)
{
	vm->code = code;
	vm->pc = 0;
	vm->sp = 0;
	vm->rsp = 0;
	vm->running = 1;
	vm->steps = 0;
	for (int i = 0; i < VARS; i++)
		vm->vars[i] = 0;
}

/* ---- 1. switch dispatch (jump table) ---- */
__attribute__((noinline)) static int32_t run_switch(struct vm *vm)
{
	const int32_t *code = vm->code;
	int32_t *st = vm->stack;
	int32_t pc = 0, sp = 0, rsp = 0, a, b;
	uint32_t steps = 0;
	for (;;) {
		steps++;
		switch ((enum op)code[pc++]) {
		case OP_HALT: vm->steps = steps; return st[sp - 1];
		case OP_PUSH: st[sp++] = code[pc++]; break;
		case OP_LOAD: st[sp++] = vm->vars[code[pc++]]; break;
		case OP_STORE: vm->vars[code[pc++]] = st[--sp]; break;
		case OP_ADD: b = st[--sp]; st[sp - 1] += b; break;
		case OP_SUB: b = st[--sp]; st[sp - 1] -= b; break;
		case OP_MUL: b = st[--sp]; st[sp - 1] *= b; break;
		case OP_AND: b = st[--sp]; st[sp - 1] &= b; break;
		case OP_SHR: b = st[--sp]; st[sp - 1] = (int32_t)((uint32_t)st[sp - 1] >> b); break;
		case OP_LT: b = st[--sp]; st[sp - 1] = st[sp - 1] < b; break;
		case OP_EQ: b = st[--sp]; st[sp - 1] = st[sp - 1] == b; break;
		case OP_JMP: pc = code[pc]; break;
		case OP_JZ: a = st[--sp]; pc = a == 0 ? code[pc] : pc + 1; break;
		case OP_JNZ: a = st[--sp]; pc = a != 0 ? code[pc] : pc + 1; break;
		case OP_DUP: st[sp] = st[sp - 1]; sp++; break;
		case OP_DROP: sp--; break;
		case OP_SWAP: a = st[sp - 1]; st[sp - 1] = st[sp - 2]; st[sp - 2] = a; break;
		case OP_CALL: vm->rstack[rsp++] = pc + 1; pc = code[pc]; break;
		case OP_RET: pc = vm->rstack[--rsp]; break;
		case OP_INC: vm->vars[code[pc++]]++; break;
		case OP_XOR: b = st[--sp]; st[sp - 1] ^= b; break;
		default: vm->steps = steps; return -1;
		}
	}
}

/* ---- 2. function-pointer table ---- */
typedef void (*handler_t)(struct vm *);

#define ARG(vm) ((vm)->code[(vm)->pc++])
#define POP(vm) ((vm)->stack[--(vm)->sp])
#define TOP(vm) ((vm)->stack[(vm)->sp - 1])

static void h_halt(struct vm *vm) { vm->running = 0; }
static void h_push(struct vm *vm) { int32_t v = ARG(vm); vm->stack[vm->sp++] = v; }
static void h_load(struct vm *vm) { int32_t i = ARG(vm); vm->stack[vm->sp++] = vm->vars[i]; }
static void h_store(struct vm *vm) { int32_t i = ARG(vm); vm->vars[i] = POP(vm); }
static void h_add(struct vm *vm) { int32_t b = POP(vm); TOP(vm) += b; }
static void h_sub(struct vm *vm) { int32_t b = POP(vm); TOP(vm) -= b; }
static void h_mul(struct vm *vm) { int32_t b = POP(vm); TOP(vm) *= b; }
static void h_and(struct vm *vm) { int32_t b = POP(vm); TOP(vm) &= b; }
static void h_shr(struct vm *vm) { int32_t b = POP(vm); TOP(vm) = (int32_t)((uint32_t)TOP(vm) >> b); }
static void h_lt(struct vm *vm) { int32_t b = POP(vm); TOP(vm) = TOP(vm) < b; }
static void h_eq(struct vm *vm) { int32_t b = POP(vm); TOP(vm) = TOP(vm) == b; }
static void h_jmp(struct vm *vm) { vm->pc = vm->code[vm->pc]; }
static void h_jz(struct vm *vm) { int32_t a = POP(vm); vm->pc = a == 0 ? vm->code[vm->pc] : vm->pc + 1; }
static void h_jnz(struct vm *vm) { int32_t a = POP(vm); vm->pc = a != 0 ? vm->code[vm->pc] : vm->pc + 1; }
static void h_dup(struct vm *vm) { vm->stack[vm->sp] = TOP(vm); vm->sp++; }
static void h_drop(struct vm *vm) { vm->sp--; }
static void h_swap(struct vm *vm) { int32_t a = TOP(vm); TOP(vm) = vm->stack[vm->sp - 2]; vm->stack[vm->sp - 2] = a; }
static void h_call(struct vm *vm) { vm->rstack[vm->rsp++] = vm->pc + 1; vm->pc = vm->code[vm->pc]; }
static void h_ret(struct vm *vm) { vm->pc = vm->rstack[--vm->rsp]; }
static void h_inc(struct vm *vm) { int32_t i = ARG(vm); vm->vars[i]++; }
static void h_xor(struct vm *vm) { int32_t b = POP(vm); TOP(vm) ^= b; }

static const handler_t handlers[OP_COUNT] = {
	h_halt, h_push, h_load, h_store, h_add, h_sub, h_mul, h_and, h_shr, h_lt, h_eq,
	h_jmp, h_jz, h_jnz, h_dup, h_drop, h_swap, h_call, h_ret, h_inc, h_xor,
};

__attribute__((noinline)) static int32_t run_table(struct vm *vm)
{
	uint32_t steps = 0;
	while (vm->running) {
		steps++;
		int32_t op = vm->code[vm->pc++];
		if ((uint32_t)op >= OP_COUNT)
			return -1;
		handlers[op](vm);
	}
	vm->steps = steps;
	return TOP(vm);
}

/* ---- 3. threaded code: computed goto ---- */
__attribute__((noinline)) static int32_t run_threaded(struct vm *vm)
{
	static const void *const labels[OP_COUNT] = {
		&&l_halt, &&l_push, &&l_load, &&l_store, &&l_add, &&l_sub, &&l_mul, &&l_and, &&l_shr,
		&&l_lt, &&l_eq, &&l_jmp, &&l_jz, &&l_jnz, &&l_dup, &&l_drop, &&l_swap, &&l_call,
		&&l_ret, &&l_inc, &&l_xor,
	};
	const int32_t *code = vm->code;
	int32_t *st = vm->stack;
	int32_t pc = 0, sp = 0, rsp = 0, a, b;
	uint32_t steps = 0;
#define NEXT                                  \
	do {                                      \
		steps++;                              \
		goto *labels[code[pc++]];             \
	} while (0)

	NEXT;
l_halt: vm->steps = steps; return st[sp - 1];
l_push: st[sp++] = code[pc++]; NEXT;
l_load: st[sp++] = vm->vars[code[pc++]]; NEXT;
l_store: vm->vars[code[pc++]] = st[--sp]; NEXT;
l_add: b = st[--sp]; st[sp - 1] += b; NEXT;
l_sub: b = st[--sp]; st[sp - 1] -= b; NEXT;
l_mul: b = st[--sp]; st[sp - 1] *= b; NEXT;
l_and: b = st[--sp]; st[sp - 1] &= b; NEXT;
l_shr: b = st[--sp]; st[sp - 1] = (int32_t)((uint32_t)st[sp - 1] >> b); NEXT;
l_lt: b = st[--sp]; st[sp - 1] = st[sp - 1] < b; NEXT;
l_eq: b = st[--sp]; st[sp - 1] = st[sp - 1] == b; NEXT;
l_jmp: pc = code[pc]; NEXT;
l_jz: a = st[--sp]; pc = a == 0 ? code[pc] : pc + 1; NEXT;
l_jnz: a = st[--sp]; pc = a != 0 ? code[pc] : pc + 1; NEXT;
l_dup: st[sp] = st[sp - 1]; sp++; NEXT;
l_drop: sp--; NEXT;
l_swap: a = st[sp - 1]; st[sp - 1] = st[sp - 2]; st[sp - 2] = a; NEXT;
l_call: vm->rstack[rsp++] = pc + 1; pc = code[pc]; NEXT;
l_ret: pc = vm->rstack[--rsp]; NEXT;
l_inc: vm->vars[code[pc++]]++; NEXT;
l_xor: b = st[--sp]; st[sp - 1] ^= b; NEXT;
#undef NEXT
}

static struct vm machine;

static int run_all(const int32_t *prog, int32_t expect, int code)
{
	int32_t r;
	uint32_t steps;

	vm_reset(&machine, prog);
	r = run_switch(&machine);
	steps = machine.steps;
	if (r != expect) {
		rt_puts("interp: switch result ");
		rt_putdec((uint32_t)r);
		rt_putc('\n');
		return code;
	}
	vm_reset(&machine, prog);
	if (run_table(&machine) != expect || machine.steps != steps)
		return code + 1;
	vm_reset(&machine, prog);
	if (run_threaded(&machine) != expect || machine.steps != steps)
		return code + 2;
	return 0;
}

int main(void)
{
	int r;
	if ((r = run_all(collatz_prog, EXPECT_COLLATZ, 10)) != 0)
		return r;
	if ((r = run_all(fib_prog, EXPECT_FIB, 20)) != 0)
		return r;
	return 0;
}

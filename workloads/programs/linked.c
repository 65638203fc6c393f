/*
 * linked: pointer-chasing over linked data structures allocated from static pools.
 *  - a singly linked list kept sorted by insertion (walks of growing length), reversed in place,
 *    then filtered (unlinking every node divisible by 3);
 *  - a circular list for the Josephus elimination (n = 400, every 7th);
 *  - an unbalanced binary search tree of 600 pseudo-random keys: insertion, recursive in-order
 *    traversal, iterative in-order traversal with an explicit stack, lookups (half of them
 *    misses) and the recursive height.
 * Loads whose addresses come from the previous load, loop exits that depend on the data, and
 * recursion whose shape follows the tree.
 *
 * Self-check: list order and length, the Josephus survivor against the recurrence
 * J(n) = (J(n - 1) + k) mod n, the two traversals agree, and checksums against the constants
 * worked out by workloads/reference.ts.
 */
#include <stddef.h>
#include <stdint.h>
#include "rt.h"

#define LIST_N 360
#define JOS_N 400
#define JOS_K 7
#define TREE_N 600

#define EXPECT_LIST 0xbdb79dbdu
#define EXPECT_TREE 0x60e003cau
#define EXPECT_HEIGHT 19u
#define EXPECT_FOUND 303u

struct lnode {
	uint32_t value;
	struct lnode *next;
};

struct tnode {
	uint32_t key;
	struct tnode *left, *right;
};

static struct lnode lpool[LIST_N > JOS_N ? LIST_N : JOS_N];
static struct tnode tpool[TREE_N];
static struct tnode *tstack[TREE_N];

__attribute__((noinline)) static struct lnode *sorted_insert(struct lnode *head, struct lnode *n)
{
	if (head == NULL || n->value <= head->value) {
		n->next = head;
		return n;
	}
	struct lnode *p = head;
	while (p->next != NULL && p->next->value < n->value)
		p = p->next;
	n->next = p->next;
	p->next = n;
	return head;
}

__attribute__((noinline)) static struct lnode *reverse(struct lnode *head)
{
	struct lnode *prev = NULL;
	while (head != NULL) {
		struct lnode *next = head->next;
		head->next = prev;
		prev = head;
		head = next;
	}
	return prev;
}

__attribute__((noinline)) static struct lnode *remove_multiples(struct lnode *head, uint32_t d)
{
	struct lnode **link = &head;
	while (*link != NULL) {
		if ((*link)->value % d == 0)
			*link = (*link)->next;
		else
			link = &(*link)->next;
	}
	return head;
}

static int list_test(uint32_t *checksum)
{
	uint32_t s = 0x5eed1234u;
	struct lnode *head = NULL;
	for (int i = 0; i < LIST_N; i++) {
		lpool[i].value = rt_xorshift32(&s) % 100000u;
		head = sorted_insert(head, &lpool[i]);
	}
	head = reverse(head); /* now descending */
	head = remove_multiples(head, 3);
	uint32_t h = 0, count = 0, prev = UINT32_MAX;
	for (struct lnode *p = head; p != NULL; p = p->next) {
		if (p->value > prev || p->value % 3 == 0)
			return 1;
		prev = p->value;
		h = h * 31u + p->value;
		count++;
	}
	*checksum = h ^ (count << 20);
	return 0;
}

static uint32_t josephus_list(void)
{
	for (int i = 0; i < JOS_N; i++) {
		lpool[i].value = (uint32_t)i;
		lpool[i].next = &lpool[(i + 1) % JOS_N];
	}
	struct lnode *prev = &lpool[JOS_N - 1];
	struct lnode *cur = &lpool[0];
	while (cur->next != cur) {
		for (int i = 1; i < JOS_K; i++) {
			prev = cur;
			cur = cur->next;
		}
		prev->next = cur->next; /* eliminate cur */
		cur = cur->next;
	}
	return cur->value;
}

static uint32_t josephus_recurrence(void)
{
	uint32_t j = 0;
	for (uint32_t n = 2; n <= JOS_N; n++)
		j = (j + JOS_K) % n;
	return j;
}

__attribute__((noinline)) static struct tnode *tree_insert(struct tnode *root, struct tnode *n)
{
	struct tnode **link = &root;
	while (*link != NULL)
		link = n->key < (*link)->key ? &(*link)->left : &(*link)->right;
	*link = n;
	return root;
}

static uint32_t walk_rank;
static uint32_t walk_sum;

__attribute__((noinline)) static void inorder(const struct tnode *t)
{
	if (t == NULL)
		return;
	inorder(t->left);
	walk_rank++;
	walk_sum += walk_rank * t->key;
	inorder(t->right);
}

__attribute__((noinline)) static uint32_t inorder_iterative(struct tnode *t)
{
	uint32_t rank = 0, sum = 0;
	int sp = 0;
	for (;;) {
		while (t != NULL) {
			tstack[sp++] = t;
			t = t->left;
		}
		if (sp == 0)
			break;
		t = tstack[--sp];
		rank++;
		sum += rank * t->key;
		t = t->right;
	}
	return sum;
}

__attribute__((noinline)) static const struct tnode *tree_find(const struct tnode *t, uint32_t key)
{
	while (t != NULL && t->key != key)
		t = key < t->key ? t->left : t->right;
	return t;
}

__attribute__((noinline)) static uint32_t height(const struct tnode *t)
{
	if (t == NULL)
		return 0;
	uint32_t l = height(t->left), r = height(t->right);
	return 1 + (l > r ? l : r);
}

int main(void)
{
	uint32_t list_sum;
	if (list_test(&list_sum) != 0)
		return 1;
	if (list_sum != EXPECT_LIST) {
		rt_puts("linked: list checksum ");
		rt_puthex(list_sum);
		rt_putc('\n');
		return 2;
	}

	if (josephus_list() != josephus_recurrence())
		return 3;

	uint32_t s = 0xfeedbeefu;
	struct tnode *root = NULL;
	for (int i = 0; i < TREE_N; i++) {
		tpool[i].key = rt_xorshift32(&s) % 50000u;
		root = tree_insert(root, &tpool[i]);
	}
	inorder(root);
	if (walk_rank != TREE_N || inorder_iterative(root) != walk_sum)
		return 4;
	uint32_t found = 0;
	for (int i = 0; i < TREE_N; i++) {
		uint32_t key = (i & 1) != 0 ? tpool[i].key : tpool[i].key + 1u;
		if (tree_find(root, key) != NULL)
			found++;
	}
	uint32_t h = height(root);
	if (walk_sum != EXPECT_TREE || h != EXPECT_HEIGHT || found != EXPECT_FOUND) {
		rt_puts("linked: tree sum ");
		rt_puthex(walk_sum);
		rt_puts(" height ");
		rt_putdec(h);
		rt_puts(" found ");
		rt_putdec(found);
		rt_putc('\n');
		return 5;
	}
	return 0;
}

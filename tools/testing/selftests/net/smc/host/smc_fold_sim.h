/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A model of a loopback-ism ring whose pages hold only its window
 * (net/smc/smc_ring_fold.h), for the unit test and the fuzzer: one
 * writer and one reader take turns as a script says, the writer widens
 * the window the way smc_tx.c does, and every byte is checked where
 * it lands and where it is read.
 *
 * The reader reads with the fold it saw when it last looked at the
 * producer cursor, older than the writer's at times: that is the case
 * the fold's rule must make safe.  The writer sees the reader's cursor
 * only as the reader last published it.
 */
#ifndef _SMC_FOLD_SIM_H
#define _SMC_FOLD_SIM_H

#include <stdlib.h>

#include "kshim.h"
#include "smc_ring_fold.h"

struct fold_sim {
	u32 len, fold, fold_max;
	u8 *store;
	u64 *owner;		/* stream position + 1 of each byte, 0: none */
	u64 prod, cons, cons_pub, prod_seen;
	u32 fold_seen;		/* the reader's fold */
	bool widen;		/* the writer wants a larger window */
	bool naive;		/* widen at once, ignoring the rule */
	unsigned int widened;
	const char *err;	/* the first broken rule, NULL if none */
};

static inline u8 fold_sim_byte(u64 x)
{
	return (u8)(x * 131 + (x >> 9) + 7);
}

/* A ring of @len offsets (fold_max/2 < len <= fold_max), window @fold */
static inline int fold_sim_init(struct fold_sim *s, u32 len, u32 fold)
{
	memset(s, 0, sizeof(*s));
	s->len = len;
	for (s->fold_max = 1; s->fold_max < len; s->fold_max <<= 1)
		;
	s->fold = fold < s->fold_max ? fold : s->fold_max;
	s->fold_seen = s->fold;
	s->store = calloc(s->fold_max, 1);
	s->owner = calloc(s->fold_max, sizeof(*s->owner));
	return s->store && s->owner ? 0 : -1;
}

static inline void fold_sim_free(struct fold_sim *s)
{
	free(s->store);
	free(s->owner);
}

static inline u32 fold_sim_at(const struct fold_sim *s, u64 x, u32 fold)
{
	return (u32)(x % s->len) & (fold - 1);
}

/* The writer writes up to @want bytes; returns how many it wrote */
static inline u32 fold_sim_write(struct fold_sim *s, u32 want)
{
	u32 win = smc_fold_window(s->len, s->fold), used, space, room, i, at;

	used = (u32)(s->prod - s->cons_pub);
	if (used > win) {
		s->err = "more in flight than the window";
		return 0;
	}
	space = win - used;
	if (s->widen) {
		if (s->naive ||
		    smc_fold_widen_ok(s->len, s->fold,
				      (u32)(s->cons_pub % s->len), used)) {
			s->fold *= 2;
			s->widen = false;
			s->widened++;
			space = smc_fold_window(s->len, s->fold) - used;
		} else {
			room = smc_fold_widen_room(s->fold,
						   (u32)(s->prod % s->len));
			space = space < room ? space : room;
		}
	}
	if (!space) {
		if (s->fold < s->fold_max)
			s->widen = true;
		return 0;
	}
	if (want > space)
		want = space;
	for (i = 0; i < want; i++, s->prod++) {
		at = fold_sim_at(s, s->prod, s->fold);
		if (s->owner[at] && s->owner[at] - 1 >= s->cons) {
			s->err = "a write over an unread byte";
			return i;
		}
		s->store[at] = fold_sim_byte(s->prod);
		s->owner[at] = s->prod + 1;
	}
	return want;
}

/* The reader looks at the producer cursor, and the fold with it */
static inline void fold_sim_look(struct fold_sim *s)
{
	s->prod_seen = s->prod;
	s->fold_seen = s->fold;
}

/* The reader reads up to @want of the bytes it saw announced */
static inline u32 fold_sim_read(struct fold_sim *s, u32 want)
{
	u32 i, at;

	if (want > s->prod_seen - s->cons)
		want = (u32)(s->prod_seen - s->cons);
	for (i = 0; i < want; i++, s->cons++) {
		at = fold_sim_at(s, s->cons, s->fold_seen);
		if (s->owner[at] != s->cons + 1 ||
		    s->store[at] != fold_sim_byte(s->cons)) {
			s->err = "a read of the wrong byte";
			return i;
		}
	}
	return want;
}

/* The reader tells the writer how far it read */
static inline void fold_sim_publish(struct fold_sim *s)
{
	s->cons_pub = s->cons;
}

/*
 * Run the script @ops: each byte an action and its size.  Returns 0, or
 * -1 with s->err set.
 */
static inline int fold_sim_run(struct fold_sim *s, const u8 *ops, size_t n)
{
	size_t i;
	u32 k;

	for (i = 0; i < n && !s->err; i++) {
		k = (u32)(ops[i] >> 2) * (s->len / 48 + 1) + 1;
		switch (ops[i] & 3) {
		case 0:
			fold_sim_write(s, k);
			break;
		case 1:
			/* or a look at the fold alone, newer than the cursor */
			if (ops[i] & 4)
				s->fold_seen = s->fold;
			else
				fold_sim_look(s);
			break;
		case 2:
			fold_sim_read(s, k);
			break;
		default:
			fold_sim_publish(s);
			break;
		}
	}
	return s->err ? -1 : 0;
}

#endif /* _SMC_FOLD_SIM_H */

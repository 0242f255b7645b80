// SPDX-License-Identifier: GPL-2.0
/*
 * hostile_peer's mode "mutate SEED SECONDS [PORTBASE]": a mutating CLC
 * peer.
 *
 * For SECONDS, rounds of CLC handshakes between the kernel's AF_SMC
 * sockets and the hostile peer, over SMC-D (loopback-ism) on 127.0.0.1
 * or ::1.  Each round is seeded from SEED and its number and plays one
 * of two roles:
 *
 *   client	the peer connects to an AF_SMC listener of the application
 *		and sends a valid Proposal, mutated; to an Accept it answers
 *		with a Confirm (mutated or not), a mutated Decline or
 *		nothing; it may send data, then closes, at times with a
 *		reset.  The application accepts, exchanges a few bytes and
 *		closes.
 *   server	the peer listens; an AF_SMC client of the application
 *		connects, and the peer answers its Proposal with a mutated
 *		Accept or Decline, garbage, the Accept twice, or nothing;
 *		it may read the client's answer and send junk.  The
 *		application exchanges a few bytes and closes.
 *
 * Mutations, 1 to 4 a message: bits flipped, a byte or an aligned
 * big-endian field set to a value of interest, the message cut short or
 * lengthened, the version and path nibbles, the type or an eyecatcher
 * changed; on the wire: in 2 to 4 writes with pauses, twice, the
 * previous round's message instead, or an answer sent before the
 * message it answers.
 *
 * HOSTILE_MUTATE_THREADS workers (1 to 4, default 3) run at once, each
 * on its own ports (PORTBASE, default 41000, + 2 * worker + role):
 * worker W runs the rounds W, W + T, W + 2T, ... of T workers, roles
 * alternating.  HOSTILE_MUTATE_ROUND=N runs round N alone (with the
 * SEED and HOSTILE_MUTATE_THREADS of the run it came from).
 *
 * Each round is logged before it runs (seed, role, mutations) and after
 * (what the peer and the application saw), a flushed line each, so that
 * a crash leaves the round on the console.  Every socket call has a
 * deadline.  Exit 0 after the counts; 1 if an application call blocked
 * 30 s past its deadline (HANG), or if AF_SMC sockets or loopback-ism
 * DMBs are not back at their counts of the start within 20 s of the
 * end; 2 on bad arguments; 4 without BPF, cgroup v2 or SMC-D.
 *
 * HOSTILE_MUTATE_SHARED=1: other programs use AF_SMC and loopback-ism
 * at the same time (make fuzz's engines), so the counts of the start
 * say nothing at the end: the caller checks them once all have ended.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include "fuzz_rng.h"
#include "hostile_clc.h"
#include "smc_diag_util.h"
#include "timeutil.h"

#define MUT_MAX		4096	/* bytes of a message, mutated */
#define MUT_OPS		4	/* mutations of a message, at most */
#define MUT_FLIPS	8	/* bits one mutation flips, at most */
#define GROW_MAX	512	/* bytes one mutation appends, at most */
#define MUT_PAUSE_MS	50	/* between the writes of a split message */
#define WORKERS_MAX	4
#define WORKERS_DEF	3
#define PORTBASE_DEF	41000

/* deadlines, ms */
#define CONNECT_MS	10000	/* the application's AF_SMC connect */
#define ACCEPT_MS	9000	/* the application's accept */
#define GRACE_MS	500	/* accept, once the peer is done */
#define IO_MS		1000	/* the application's send, recv, close */
#define AFTER_MS	2000	/* the peer, for the kernel's second word */
#define TAIL_MS		500	/* the peer, for data before it closes */
#define ROUND_MS	20000	/* a round, all deadlines summed up */
#define HANG_MS		30000	/* past a deadline: a hang */
#define SETTLE_MS	20000	/* for the counts of the start, at the end */

/* GID and GID extension of nobody, as in hostile_peer.c's cases */
#define FOREIGN_GID	0x0102030405060708ull
#define FOREIGN_EXT	0x1112131415161718ull

/* ------------------------------------------------------------------ */
/* random numbers: fuzz_rng.h; a round's stream is its own seed's */

/* The seed of round @n of a run seeded @seed */
static uint64_t round_seed(uint64_t seed, unsigned long n)
{
	uint64_t x = seed ^ (uint64_t)n * 0xd1b54a32d192ed03ull;

	return splitmix64(&x);
}

/* @n bytes that @seed stands for (appended, garbage, data) */
static void fill_bytes(uint8_t *b, int n, uint64_t seed)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < n; i++) {
		if (!(i & 7))
			v = splitmix64(&seed);
		b[i] = v >> 8 * (i & 7);
	}
}

/* ------------------------------------------------------------------ */
/* text of a round's log lines */

struct sbuf {
	char s[2048];
	size_t len;
};

static void __attribute__((format(printf, 2, 3)))
sb_add(struct sbuf *sb, const char *fmt, ...)
{
	size_t room = sizeof(sb->s) - sb->len;
	va_list ap;
	int n;

	if (room <= 1)
		return;
	va_start(ap, fmt);
	n = vsnprintf(sb->s + sb->len, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		sb->len += (size_t)n < room ? (size_t)n : room - 1;
}

/* ------------------------------------------------------------------ */
/* mutations */

enum mut_kind {
	MUT_FLIP,	/* 1-8 bits flipped */
	MUT_BYTE,	/* a byte set */
	MUT_FIELD,	/* an aligned 16/32-bit big-endian field set */
	MUT_CUT,	/* cut short */
	MUT_GROW,	/* random bytes appended */
	MUT_HEAD,	/* a part of the header or the trailer changed */
	/* on the wire, see send_msg() */
	MUT_SPLIT,	/* in 2-4 writes with pauses */
	MUT_TWICE,	/* sent twice */
	MUT_STALE,	/* the previous round's message instead */
	MUT_KINDS
};

enum head_part {
	HEAD_VERSION,	/* high nibble of byte 7 */
	HEAD_PATH,	/* low nibble of byte 7 */
	HEAD_TYPE,	/* byte 4 */
	HEAD_EYE,	/* eyecatcher at 0 */
	HEAD_TRAILER,	/* eyecatcher at the end */
	HEAD_PARTS
};

struct mut {
	enum mut_kind kind;
	int cnt;		/* bits flipped, writes of a split */
	int width;		/* of a field: 2 or 4 */
	int part;		/* of the header: enum head_part */
	int fix_len;		/* appended: the length field follows */
	int rel;		/* field: the length + rel, if not 0 */
	uint32_t val;		/* new value; length cut to; bytes appended */
	uint32_t at[MUT_FLIPS];	/* bit or byte offsets; cut points */
	uint16_t pause_ms[3];	/* after each cut point */
	uint64_t seed;		/* of the appended bytes */
};

/* The mutations of one message, offsets drawn for its planned length */
struct msg_plan {
	int n;
	struct mut m[MUT_OPS];
};

static const uint8_t byte_vals[] = { 0x00, 0xff, 0x7f, 0x80, 0x01 };
static const uint32_t field_vals[] = { 0, 1, 0xffffffff, 44, CLC_MAX };
static const uint8_t version_vals[] = { 0, 1, 2, 3, 15 };
static const uint8_t type_vals[] = { 0, CLC_PROPOSAL, CLC_ACCEPT,
				     CLC_CONFIRM, CLC_DECLINE, 5, 0xff };
/* EBCDIC "SMCR" and "SMCD", ASCII "SMCR", none */
static const uint32_t eye_vals[] = { EYE_R, EYE_D, 0x534d4352, 0 };

/* weights of the kinds, summing up to 100 */
static const uint8_t kind_weight[MUT_KINDS] = {
	[MUT_FLIP] = 20, [MUT_BYTE] = 16, [MUT_FIELD] = 16, [MUT_CUT] = 8,
	[MUT_GROW] = 10, [MUT_HEAD] = 12, [MUT_SPLIT] = 8, [MUT_TWICE] = 5,
	[MUT_STALE] = 5,
};

static enum mut_kind pick_kind(struct rng *r)
{
	int x = rng_below(r, 100), k;

	for (k = 0; k < MUT_KINDS - 1; k++) {
		x -= kind_weight[k];
		if (x < 0)
			break;
	}
	return k;
}

static void plan_head(struct rng *r, struct mut *m)
{
	m->part = rng_below(r, HEAD_PARTS);
	switch (m->part) {
	case HEAD_VERSION:
		m->val = version_vals[rng_below(r, sizeof(version_vals))];
		break;
	case HEAD_PATH:
		m->val = rng_below(r, 16);
		break;
	case HEAD_TYPE:
		m->val = type_vals[rng_below(r, sizeof(type_vals))];
		break;
	default:
		m->val = rng_pct(r, 20) ? (uint32_t)rng_next(r) :
			 eye_vals[rng_below(r, ARRAY_SIZE(eye_vals))];
	}
}

static void plan_field(struct rng *r, struct mut *m, int len)
{
	m->width = rng_pct(r, 50) ? 2 : 4;
	m->at[0] = rng_below(r, len / m->width) * m->width;
	if (rng_pct(r, 40)) {
		m->rel = 1 + rng_below(r, 4);
		if (rng_pct(r, 50))
			m->rel = -m->rel;
	} else {
		m->val = field_vals[rng_below(r, ARRAY_SIZE(field_vals))];
		if (m->width == 2 && m->val == 0xffffffff)
			m->val = 0xffff;
	}
}

static void plan_split(struct rng *r, struct mut *m, int len)
{
	int i;

	m->cnt = 2 + rng_below(r, 3);
	for (i = 0; i < m->cnt - 1; i++) {
		m->at[i] = rng_below(r, len + 1);
		m->pause_ms[i] = rng_below(r, MUT_PAUSE_MS + 1);
	}
}

/* One mutation of @kind for a message of @len bytes; the length after */
static int plan_mut(struct rng *r, struct mut *m, enum mut_kind kind,
		    int len)
{
	int i;

	memset(m, 0, sizeof(*m));
	m->kind = kind;
	switch (kind) {
	case MUT_FLIP:
		m->cnt = 1 + rng_below(r, MUT_FLIPS);
		for (i = 0; i < m->cnt; i++)
			m->at[i] = rng_below(r, 8 * len);
		break;
	case MUT_BYTE:
		m->at[0] = rng_below(r, len);
		m->val = rng_pct(r, 50) ? rng_below(r, 256) :
			 byte_vals[rng_below(r, sizeof(byte_vals))];
		break;
	case MUT_FIELD:
		plan_field(r, m, len);
		break;
	case MUT_CUT:
		i = rng_below(r, 4);
		m->val = i == 0 ? 1 : i == 1 ? 8 : 1 + rng_below(r, len);
		return m->val < (uint32_t)len ? (int)m->val : len;
	case MUT_GROW:
		m->val = 1 + rng_below(r, GROW_MAX);
		m->fix_len = rng_pct(r, 50);
		m->seed = rng_next(r);
		return len + m->val < MUT_MAX ? len + m->val : MUT_MAX;
	case MUT_HEAD:
		plan_head(r, m);
		break;
	case MUT_SPLIT:
		plan_split(r, m, len);
		break;
	default:
		break;
	}
	return len;
}

/*
 * 1-4 mutations for a message of @len bytes.  In @valid_pct percent of
 * the plans only on the wire (split, twice): the message stays valid,
 * so that the handshake can go on to its next step.
 */
static void plan_msg(struct rng *r, struct msg_plan *p, int len,
		     int valid_pct)
{
	unsigned int used = 0;
	enum mut_kind kind;
	int i;

	if (rng_pct(r, valid_pct)) {
		p->n = 1 + rng_below(r, 2);
		kind = rng_pct(r, 50) ? MUT_SPLIT : MUT_TWICE;
		plan_mut(r, &p->m[0], kind, len);
		if (p->n == 2)
			plan_mut(r, &p->m[1], kind == MUT_SPLIT ? MUT_TWICE :
				 MUT_SPLIT, len);
		return;
	}
	p->n = 1 + rng_below(r, MUT_OPS);
	for (i = 0; i < p->n; i++) {
		kind = pick_kind(r);
		/* each of the wire's once; offsets for the length by then */
		if (kind >= MUT_SPLIT && (used & 1u << kind))
			kind = MUT_FLIP;
		used |= 1u << kind;
		len = plan_mut(r, &p->m[i], kind, len);
	}
}

static void head_apply(uint8_t *b, int len, const struct mut *m)
{
	switch (m->part) {
	case HEAD_VERSION:
		if (len > 7)
			b[7] = (b[7] & 0x0f) | m->val << 4;
		break;
	case HEAD_PATH:
		if (len > 7)
			b[7] = (b[7] & 0xf0) | (m->val & 0x0f);
		break;
	case HEAD_TYPE:
		if (len > 4)
			b[4] = m->val;
		break;
	case HEAD_EYE:
		if (len >= 4)
			put32(b, m->val);
		break;
	case HEAD_TRAILER:
		if (len >= 4)
			put32(b + len - 4, m->val);
		break;
	}
}

static void field_apply(uint8_t *b, int len, const struct mut *m)
{
	uint32_t at = m->at[0], v;

	if (len < m->width)
		return;
	/* drawn for a longer message: the last aligned field */
	if (at + m->width > (uint32_t)len)
		at = (len / m->width - 1) * m->width;
	v = m->rel ? (uint32_t)(len + m->rel) : m->val;
	if (m->width == 2)
		put16(b + at, v);
	else
		put32(b + at, v);
}

/*
 * Apply @m to the @len bytes at @b (room for MUT_MAX); the new length.
 * Offsets beyond the message wrap around.
 */
static int mut_apply(uint8_t *b, int len, const struct mut *m)
{
	int i, n;

	if (len < 1 || len > MUT_MAX)
		return len;
	switch (m->kind) {
	case MUT_FLIP:
		for (i = 0; i < m->cnt; i++) {
			n = m->at[i] % (8 * len);
			b[n / 8] ^= 0x80 >> n % 8;
		}
		break;
	case MUT_BYTE:
		b[m->at[0] % len] = m->val;
		break;
	case MUT_FIELD:
		field_apply(b, len, m);
		break;
	case MUT_CUT:
		if (m->val >= 1 && m->val < (uint32_t)len)
			len = m->val;
		break;
	case MUT_GROW:
		n = (int)m->val < MUT_MAX - len ? (int)m->val : MUT_MAX - len;
		fill_bytes(b + len, n, m->seed);
		len += n;
		if (m->fix_len && len >= 7)
			put16(b + 5, len);
		break;
	case MUT_HEAD:
		head_apply(b, len, m);
		break;
	default:
		break;
	}
	return len;
}

/* The mutations of @p that change bytes, on @b; the new length */
static int mutate_msg(uint8_t *b, int len, const struct msg_plan *p)
{
	int i;

	for (i = 0; i < p->n; i++)
		len = mut_apply(b, len, &p->m[i]);
	return len;
}

static void describe_head(struct sbuf *sb, const struct mut *m)
{
	static const char *const part[] = {
		[HEAD_VERSION] = "version", [HEAD_PATH] = "path bits",
		[HEAD_TYPE] = "type", [HEAD_EYE] = "eyecatcher",
		[HEAD_TRAILER] = "trailer",
	};

	if (m->part == HEAD_EYE || m->part == HEAD_TRAILER)
		sb_add(sb, "%s %08x", part[m->part], m->val);
	else
		sb_add(sb, "%s %u", part[m->part], m->val);
}

static void describe_mut(struct sbuf *sb, const struct mut *m)
{
	int i;

	switch (m->kind) {
	case MUT_FLIP:
		sb_add(sb, "flip");
		for (i = 0; i < m->cnt; i++)
			sb_add(sb, " %u.%u", m->at[i] / 8, m->at[i] % 8);
		break;
	case MUT_BYTE:
		sb_add(sb, "byte@%u=0x%02x", m->at[0], m->val);
		break;
	case MUT_FIELD:
		sb_add(sb, "be%d@%u=", 8 * m->width, m->at[0]);
		if (m->rel)
			sb_add(sb, "len%+d", m->rel);
		else
			sb_add(sb, "0x%x", m->val);
		break;
	case MUT_CUT:
		sb_add(sb, "cut to %u", m->val);
		break;
	case MUT_GROW:
		sb_add(sb, "append %u%s", m->val, m->fix_len ? " fixing len" : "");
		break;
	case MUT_HEAD:
		describe_head(sb, m);
		break;
	case MUT_SPLIT:
		sb_add(sb, "split %d", m->cnt);
		for (i = 0; i < m->cnt - 1; i++)
			sb_add(sb, "%s%u+%ums", i ? "," : " at ", m->at[i],
			       m->pause_ms[i]);
		break;
	case MUT_TWICE:
		sb_add(sb, "twice");
		break;
	case MUT_STALE:
		sb_add(sb, "previous round's");
		break;
	default:
		break;
	}
}

static void describe_msg(struct sbuf *sb, const struct msg_plan *p)
{
	int i;

	if (!p->n)
		sb_add(sb, "unmutated");
	for (i = 0; i < p->n; i++) {
		if (i)
			sb_add(sb, "; ");
		describe_mut(sb, &p->m[i]);
	}
}

/* ------------------------------------------------------------------ */
/* rounds and what they plan */

enum role { ROLE_CLIENT, ROLE_SERVER };

enum answer {
	ANS_CONFIRM,	/* client: a Confirm built from the Accept */
	ANS_DECLINE,
	ANS_NOTHING,
	ANS_EARLY,	/* client: Confirm, server: Accept, unasked */
	ANS_ACCEPT,	/* server: an Accept built from the Proposal */
	ANS_TWICE,	/* server: that Accept twice, unmutated */
	ANS_GARBAGE,	/* server */
	ANS_CLOSE,	/* server: close at once */
};

static const char *const answer_name[] = {
	[ANS_CONFIRM] = "confirm", [ANS_DECLINE] = "decline",
	[ANS_NOTHING] = "nothing", [ANS_EARLY] = "unasked",
	[ANS_ACCEPT] = "accept", [ANS_TWICE] = "accept twice",
	[ANS_GARBAGE] = "garbage", [ANS_CLOSE] = "close",
};

enum token_kind { TOK_RANDOM, TOK_ZERO, TOK_ONES, TOK_ACCEPTS, TOK_KINDS };

static const char *const token_name[] = {
	[TOK_RANDOM] = "random", [TOK_ZERO] = "zero", [TOK_ONES] = "ones",
	[TOK_ACCEPTS] = "the accept's",
};

static const uint32_t decline_codes[] = {
	R_PEERNOSMC, R_NOSMCDEV, R_NOSMCDDEV, R_NOSMCD2DEV, R_NOUEID,
	R_MODEUNSUPP, R_MAX_DMB, R_MEM, R_SYNCERR,
};

enum gid_set { GIDS_OWN, GIDS_FOREIGN, GIDS_BOTH };

static const char *const gid_set_name[] = {
	[GIDS_OWN] = "own", [GIDS_FOREIGN] = "foreign",
	[GIDS_BOTH] = "foreign+own",
};

struct plan {
	int v6;
	struct prop prop;	/* client: the Proposal */
	enum gid_set gids;
	int answer_ms;		/* client: for the first answer */
	int nonblock;		/* server: the application's connect */
	enum answer answer;
	int version;		/* of our Accept or Decline */
	int own_gid;		/* our Accept or Confirm names our GID */
	enum token_kind token_kind;
	uint64_t token;
	uint32_t code;		/* of our Decline */
	int garbage_len;
	uint64_t garbage_seed;
	struct msg_plan first;	/* the Proposal; the server's answer */
	struct msg_plan second;	/* the client's answer */
	int read_answer;	/* server: read what the client says */
	int data_len;		/* bytes sent before the close */
	uint64_t data_seed;
	int reset;		/* close with SO_LINGER 0 */
	int hold;		/* server: close after the application */
};

struct worker {
	int idx;
	pthread_t thread;
	/* read by the watchdog, see watch() */
	unsigned long round;
	long round_start;	/* ms, 0 between rounds */
	const char *op;		/* the application call running */
	long op_deadline;
	int done;
	int started;
	/* the last message sent, of this round and the one before */
	uint8_t cur[MUT_MAX], prev[MUT_MAX];
	int cur_len, prev_len;
};

struct round {
	unsigned long n;
	uint64_t seed;
	struct rng rng;
	enum role role;
	struct worker *w;
	struct plan plan;
	struct sbuf desc;	/* the line before */
	struct sbuf peer;	/* what the peer saw */
	int accepted, declined, fell_back, timed_out;
	/* the application side, a thread of its own */
	pthread_t app;
	int app_started;
	int app_lfd;		/* client role: the AF_SMC listener */
	uint16_t app_port;	/* server role: where to connect */
	int peer_done;
	long peer_done_ms;
	struct sbuf app_log;
};

/* set up by mutate_main(), read only in the rounds */
static uint64_t run_seed;
static int nworkers = WORKERS_DEF;
static uint16_t portbase = PORTBASE_DEF;
static long run_end_ms;
static int have_v6;
static int only_round;
static unsigned long only_round_n;

static unsigned long cnt_rounds, cnt_accepted, cnt_declined, cnt_fellback,
	cnt_timedout;

static pthread_mutex_t sock_lock = PTHREAD_MUTEX_INITIALIZER;

/* Round @n's role: worker n % T alternates, the workers start apart */
static enum role role_of(unsigned long n)
{
	return (n / nworkers + n % nworkers) & 1 ? ROLE_SERVER : ROLE_CLIENT;
}

static uint64_t plan_token(struct rng *r, enum token_kind *kind, int role)
{
	*kind = rng_below(r, role == ROLE_CLIENT ? TOK_KINDS : TOK_ACCEPTS);
	switch (*kind) {
	case TOK_ZERO:
		return 0;
	case TOK_ONES:
		return ~0ull;
	default:
		return rng_next(r);
	}
}

static void plan_decline(struct rng *r, struct plan *pl)
{
	pl->version = 1 + rng_pct(r, 70);
	if (rng_pct(r, 15))
		pl->code = rng_next(r);
	else
		pl->code = decline_codes[rng_below(r,
						   ARRAY_SIZE(decline_codes))];
}

/* A Decline of @pl: its code, and the out-of-sync bit with SYNCERR */
static int build_decline(uint8_t *b, const struct plan *pl)
{
	int len = decline_build(b, pl->version, pl->code);

	if (pl->code == R_SYNCERR)
		b[7] |= 0x08;
	return len;
}

static void plan_proposal(struct rng *r, struct plan *pl)
{
	struct prop *p = &pl->prop;
	int i;

	prop_init(p);
	if (rng_pct(r, 20)) {
		p->version = 1;
		p->typev1 = TYPE_D;
	} else {
		if (rng_pct(r, 30))
			p->typev1 = TYPE_D;
		if (rng_pct(r, 10))
			p->typev2 = TYPE_B;
		p->eids = rng_pct(r, 80) ? 1 + rng_below(r, 2) : 0;
		if (rng_pct(r, 15))
			p->release = rng_below(r, 3);
	}
	if (p->typev1 == TYPE_D)
		p->ipv6_cnt = rng_below(r, 3);
	i = rng_below(r, 100);
	pl->gids = i < 70 ? GIDS_OWN : i < 85 ? GIDS_FOREIGN : GIDS_BOTH;
	if (pl->gids == GIDS_OWN) {
		prop_own_gids(p);
	} else if (pl->gids == GIDS_BOTH) {
		for (i = 0; i < own_ism_cnt; i++)
			p->gid[1 + i] = own_ism[i];
		p->ngid = 1 + own_ism_cnt;
	}
}

static void describe_proposal(struct sbuf *sb, const struct plan *pl,
			      int len)
{
	const struct prop *p = &pl->prop;

	if (p->version == 1)
		sb_add(sb, "proposal v1 D");
	else
		sb_add(sb, "proposal v2 %s%s", p->typev2 == TYPE_B ? "R+D" :
		       "D", p->typev1 == TYPE_D ? " v1 D" : "");
	if (p->typev1 == TYPE_D)
		sb_add(sb, " %d IPv6 prefixes", p->ipv6_cnt);
	if (p->version != 1)
		sb_add(sb, " %d EIDs release %d", p->eids, p->release);
	sb_add(sb, " %s GIDs, %d bytes: ", gid_set_name[pl->gids], len);
	describe_msg(sb, &pl->first);
}

static void plan_client(struct round *rd)
{
	static const int answer_ms[] = { 1500, 3000, 3000, 7000 };
	struct plan *pl = &rd->plan;
	struct rng *r = &rd->rng;
	uint8_t tmp[MUT_MAX];
	int len, i;

	plan_proposal(r, pl);
	len = prop_build(tmp, sizeof(tmp), &pl->prop);
	plan_msg(r, &pl->first, len, 25);
	pl->answer_ms = answer_ms[rng_below(r, ARRAY_SIZE(answer_ms))];
	i = rng_below(r, 100);
	pl->answer = i < 55 ? ANS_CONFIRM : i < 75 ? ANS_DECLINE :
		     i < 90 ? ANS_NOTHING : ANS_EARLY;
	pl->own_gid = rng_pct(r, 80);
	pl->token = plan_token(r, &pl->token_kind, ROLE_CLIENT);
	plan_decline(r, pl);
	if (pl->answer == ANS_DECLINE)
		plan_msg(r, &pl->second, pl->version == 1 ? DECL_LEN_V1 :
			 DECL_LEN_V2, 0);
	else if (pl->answer != ANS_NOTHING && rng_pct(r, 50))
		plan_msg(r, &pl->second, 130, 0);

	describe_proposal(&rd->desc, pl, len);
	if (pl->answer == ANS_EARLY)
		sb_add(&rd->desc, " | confirm before the accept");
	else
		sb_add(&rd->desc, " | waits %d ms; to an accept: %s",
		       pl->answer_ms, answer_name[pl->answer]);
	if (pl->answer == ANS_DECLINE)
		sb_add(&rd->desc, " v%d 0x%08x: ", pl->version, pl->code);
	else if (pl->answer != ANS_NOTHING)
		sb_add(&rd->desc, " token %s%s: ", token_name[pl->token_kind],
		       pl->own_gid ? "" : " foreign GID");
	if (pl->answer != ANS_NOTHING)
		describe_msg(&rd->desc, &pl->second);
	if (pl->answer == ANS_EARLY)
		sb_add(&rd->desc, " | waits %d ms", pl->answer_ms);
}

static void plan_server(struct round *rd)
{
	struct plan *pl = &rd->plan;
	struct rng *r = &rd->rng;
	int i, len = 0;

	pl->nonblock = rng_pct(r, 40);
	i = rng_below(r, 100);
	pl->answer = i < 40 ? ANS_ACCEPT : i < 50 ? ANS_TWICE :
		     i < 62 ? ANS_DECLINE : i < 72 ? ANS_GARBAGE :
		     i < 80 ? ANS_NOTHING : i < 88 ? ANS_CLOSE : ANS_EARLY;
	pl->version = rng_pct(r, 85) ? 2 : 1;
	pl->own_gid = rng_pct(r, 50);
	pl->token = plan_token(r, &pl->token_kind, ROLE_SERVER);
	pl->garbage_len = 1 + rng_below(r, GROW_MAX);
	pl->garbage_seed = rng_next(r);
	switch (pl->answer) {
	case ANS_ACCEPT:
	case ANS_EARLY:
		len = pl->version == 1 ? 48 : 130;
		break;
	case ANS_DECLINE:
		plan_decline(r, pl);
		len = pl->version == 1 ? DECL_LEN_V1 : DECL_LEN_V2;
		break;
	case ANS_GARBAGE:
		len = pl->garbage_len;
		break;
	default:
		break;
	}
	if (len)
		plan_msg(r, &pl->first, len, pl->answer == ANS_EARLY ? 0 : 15);
	pl->read_answer = rng_pct(r, 70);
	pl->hold = rng_pct(r, 50);

	sb_add(&rd->desc, "connect%s | %s", pl->nonblock ? " non-blocking" :
	       "", pl->answer == ANS_EARLY ? "accept before the proposal" :
	       answer_name[pl->answer]);
	if (pl->answer == ANS_DECLINE)
		sb_add(&rd->desc, " v%d 0x%08x", pl->version, pl->code);
	if (pl->answer == ANS_ACCEPT || pl->answer == ANS_EARLY ||
	    pl->answer == ANS_TWICE)
		sb_add(&rd->desc, " v%d %s GID token %s", pl->version,
		       pl->own_gid ? "own" : "foreign",
		       token_name[pl->token_kind]);
	if (len) {
		sb_add(&rd->desc, ", %d bytes: ", len);
		describe_msg(&rd->desc, &pl->first);
	}
	if (pl->answer != ANS_CLOSE)
		sb_add(&rd->desc, " | %sread the answer, close %s the app",
		       pl->read_answer ? "" : "do not ",
		       pl->hold ? "after" : "before");
}

/* Everything round @n does, drawn from its seed */
static void plan_round(struct round *rd)
{
	struct plan *pl = &rd->plan;
	struct rng *r = &rd->rng;

	pl->v6 = rng_pct(r, 30) && have_v6;
	if (rd->role == ROLE_CLIENT)
		plan_client(rd);
	else
		plan_server(rd);
	pl->data_len = rng_pct(r, 50) ? 1 + rng_below(r, 64) : 0;
	pl->data_seed = rng_next(r);
	pl->reset = rng_pct(r, 25);
	if (rd->role == ROLE_SERVER && pl->answer == ANS_CLOSE)
		sb_add(&rd->desc, " at once%s", pl->reset ? ", reset" : "");
	else
		sb_add(&rd->desc, " | then %d bytes, %s", pl->data_len,
		       pl->reset ? "reset" : "close");
}

/* ------------------------------------------------------------------ */
/* sockets of the rounds */

/*
 * A socket of the peer (plain TCP, in the peer cgroup) or of the
 * application (AF_SMC).  cgroup.procs moves the whole process, so no
 * other worker may create a socket meanwhile.
 */
static int round_socket(int peer, int v6, int flags)
{
	int fd, one = 1;

	pthread_mutex_lock(&sock_lock);
	if (peer) {
		cg_enter_peer();
		fd = socket(v6 ? AF_INET6 : AF_INET,
			    SOCK_STREAM | SOCK_CLOEXEC | flags, 0);
		cg_enter_app();
	} else {
		fd = socket(AF_SMC, SOCK_STREAM | SOCK_CLOEXEC | flags,
			    v6 ? SMCPROTO_SMC6 : SMCPROTO_SMC);
	}
	pthread_mutex_unlock(&sock_lock);
	/* a split message goes out in pieces */
	if (fd >= 0 && peer)
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

/* 127.0.0.1 or ::1, port @port */
static socklen_t round_addr(int v6, uint16_t port,
			    struct sockaddr_storage *ss)
{
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *a4 = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	if (!v6) {
		*a4 = lo_addr(port);
		return sizeof(*a4);
	}
	a6->sin6_family = AF_INET6;
	a6->sin6_addr = in6addr_loopback;
	a6->sin6_port = htons(port);
	return sizeof(*a6);
}

/* Listen on @port, or on any port if that one is taken; the port */
static int round_listen(int fd, int v6, uint16_t port, uint16_t *bound)
{
	struct sockaddr_storage ss;
	socklen_t len = round_addr(v6, port, &ss);
	int one = 1;

	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, len)) {
		if (errno != EADDRINUSE)
			return -1;
		len = round_addr(v6, 0, &ss);
		if (bind(fd, (struct sockaddr *)&ss, len))
			return -1;
	}
	len = sizeof(ss);
	if (listen(fd, 16) || getsockname(fd, (struct sockaddr *)&ss, &len))
		return -1;
	*bound = ntohs(v6 ? ((struct sockaddr_in6 *)&ss)->sin6_port :
		       ((struct sockaddr_in *)&ss)->sin_port);
	return 0;
}

static void close_fd(int fd, int reset)
{
	struct linger lg = { 1, 0 };

	if (fd < 0)
		return;
	if (reset)
		setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	close(fd);
}

/* Take a connection off the non-blocking @lfd within @ms, or -1 */
static int accept_within(int lfd, int ms)
{
	struct pollfd pfd = { .fd = lfd, .events = POLLIN };

	if (poll(&pfd, 1, ms) <= 0)
		return -1;
	return accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
}

/*
 * Send @b as @p says: in pieces with pauses, twice, or the previous
 * round's message instead.  0, or -1 if the connection failed.
 */
static int send_pieces(int fd, const uint8_t *b, int len,
		       const struct mut *split)
{
	uint32_t cut[3], t;
	int n = 0, i, j, from = 0;

	if (split)
		n = split->cnt - 1;
	for (i = 0; i < n; i++)
		cut[i] = split->at[i] % (len + 1);
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && cut[j - 1] > cut[j]; j--) {
			t = cut[j];
			cut[j] = cut[j - 1];
			cut[j - 1] = t;
		}
	for (i = 0; i < n; i++) {
		if (send_all(fd, b + from, cut[i] - from))
			return -1;
		from = cut[i];
		msleep(split->pause_ms[i]);
	}
	return send_all(fd, b + from, len - from);
}

static int send_msg(struct round *rd, int fd, const uint8_t *b, int len,
		    const struct msg_plan *p)
{
	const struct mut *split = NULL;
	struct worker *w = rd->w;
	int twice = 0, stale = 0, i;

	for (i = 0; i < p->n; i++) {
		if (p->m[i].kind == MUT_SPLIT)
			split = &p->m[i];
		else if (p->m[i].kind == MUT_TWICE)
			twice = 1;
		else if (p->m[i].kind == MUT_STALE)
			stale = 1;
	}
	if (stale && !w->prev_len)
		sb_add(&rd->peer, "(no previous round's message) ");
	if (stale && w->prev_len) {
		b = w->prev;
		len = w->prev_len;
	}
	if (b != w->cur) {
		memcpy(w->cur, b, len);
		w->cur_len = len;
	}
	for (i = 0; i <= twice; i++)
		if (send_pieces(fd, b, len, split))
			return -1;
	return 0;
}

/* ------------------------------------------------------------------ */
/* what the kernel said */

/*
 * Note the CLC message the peer read (@got bytes, then @end), counting
 * Accepts, Confirms, Declines and timeouts.  Its type, or 0.
 */
static int note_clc(struct round *rd, const char *when, const uint8_t *b,
		    int got, int end, int err)
{
	struct sbuf *sb = &rd->peer;
	char why[160], eb[64];
	uint32_t code;

	sb_add(sb, "%s: ", when);
	if (!got) {
		sb_add(sb, "nothing, %s", end_words(end, err, eb, sizeof(eb)));
		rd->timed_out |= end == 'T';
		return 0;
	}
	if (got < 8) {
		sb_add(sb, "%d bytes, %s", got,
		       end_words(end, err, eb, sizeof(eb)));
		return 0;
	}
	switch (b[4]) {
	case CLC_ACCEPT:
		rd->accepted |= rd->role == ROLE_CLIENT;
		sb_add(sb, "accept%s %d bytes", b[7] & 0x08 ? " fc" : "", got);
		if (check_accept(b, got, why, sizeof(why)))
			sb_add(sb, " (%s)", why);
		return CLC_ACCEPT;
	case CLC_CONFIRM:
		rd->accepted |= rd->role == ROLE_SERVER;
		sb_add(sb, "confirm%s %d bytes token 0x%016llx",
		       b[7] & 0x08 ? " fc" : "", got,
		       got >= 24 ? (unsigned long long)get64(b + 16) : 0ull);
		return CLC_CONFIRM;
	case CLC_DECLINE:
		rd->declined = 1;
		if (check_decline(b, got, 0, &code, why, sizeof(why)))
			sb_add(sb, "decline, malformed: %s", why);
		else
			sb_add(sb, "decline v%d 0x%08x", b[7] >> 4, code);
		return CLC_DECLINE;
	}
	sb_add(sb, "%d bytes of type %u", got, b[4]);
	return b[4];
}

/* The first EID of a Proposal, or NULL */
static const uint8_t *proposal_eid(const uint8_t *b, int got)
{
	char why[160];
	int len, e;

	len = check_proposal_frame(b, got, why, sizeof(why));
	if (len < 0 || b[7] >> 4 < 2)
		return NULL;
	e = proposal_v2_ext(b, len, why, sizeof(why));
	if (e < 0 || !b[e] || e + 40 + 32 > len - 4)
		return NULL;
	return b + e + 40;
}

/* ------------------------------------------------------------------ */
/* the application side: a thread of the round */

/* The application's call @op runs until @ms from now; NULL: none */
static void app_op(struct round *rd, const char *op, int ms)
{
	__atomic_store_n(&rd->w->op_deadline, now_ms() + ms,
			 __ATOMIC_RELAXED);
	__atomic_store_n(&rd->w->op, op, __ATOMIC_RELEASE);
}

/* The mode of a connection, a few bytes each way, and the close */
static void app_talk(struct round *rd, int fd)
{
	static const char hello[] = "application data after the handshake";
	struct sbuf *sb = &rd->app_log;
	struct smc_sock_info si;
	int got, end, err;
	uint8_t buf[256];
	char eb[64];

	set_nonblock(fd, 0);
	set_timeouts(fd, IO_MS);
	app_op(rd, "smc_diag lookup", IO_MS);
	if (smc_diag_lookup(fd, &si)) {
		sb_add(sb, ", not in smc_diag");
	} else {
		sb_add(sb, ", %s %s", smc_mode_name(si.mode),
		       smc_state_name(si.state));
		if (si.mode == SMC_TEST_MODE_FALLBACK) {
			rd->fell_back = 1;
			sb_add(sb, " 0x%08x/0x%08x", si.reason, si.peer_diag);
		}
	}
	app_op(rd, "send", IO_MS);
	if (send_all(fd, hello, sizeof(hello) - 1))
		sb_add(sb, ", send: %s", strerror_r(errno, eb, sizeof(eb)));
	app_op(rd, "recv", IO_MS);
	got = recv_upto(fd, buf, sizeof(buf), IO_MS, &end, &err);
	sb_add(sb, ", got %d bytes, %s", got,
	       end_words(end, err, eb, sizeof(eb)));
	app_op(rd, "close", IO_MS);
	close(fd);
	app_op(rd, NULL, 0);
}

/* Client role: accept until the deadline, or shortly after the peer */
static void *app_listener(void *arg)
{
	struct round *rd = arg;
	long deadline = now_ms() + ACCEPT_MS, t0 = now_ms(), left;
	int fd = -1;

	app_op(rd, "accept", ACCEPT_MS);
	for (;;) {
		left = deadline - now_ms();
		if (__atomic_load_n(&rd->peer_done, __ATOMIC_ACQUIRE)) {
			long grace = rd->peer_done_ms + GRACE_MS - now_ms();

			left = grace < left ? grace : left;
		}
		if (left <= 0)
			break;
		fd = accept_within(rd->app_lfd, left < 100 ? left : 100);
		if (fd >= 0)
			break;
	}
	app_op(rd, NULL, 0);
	if (fd < 0) {
		sb_add(&rd->app_log, "nothing accepted");
		return NULL;
	}
	sb_add(&rd->app_log, "accepted after %ld ms", now_ms() - t0);
	app_talk(rd, fd);
	return NULL;
}

/* A non-blocking connect's SO_ERROR in @err, if it ends within @ms */
static void app_connect_wait(int fd, int ms, int *err)
{
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };
	socklen_t l = sizeof(*err);

	if (poll(&pfd, 1, ms) <= 0)
		return;
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, err, &l))
		*err = errno;
}

/* Server role: connect to the peer, blocking or not */
static void *app_client(void *arg)
{
	struct round *rd = arg;
	struct sockaddr_storage ss;
	socklen_t len = round_addr(rd->plan.v6, rd->app_port, &ss);
	int fd, err = 0, nonblock = rd->plan.nonblock;
	long t0 = now_ms();
	char eb[64];

	fd = round_socket(0, rd->plan.v6, nonblock ? SOCK_NONBLOCK : 0);
	if (fd < 0) {
		sb_add(&rd->app_log, "AF_SMC socket: %s",
		       strerror_r(errno, eb, sizeof(eb)));
		return NULL;
	}
	set_timeouts(fd, CONNECT_MS);
	app_op(rd, "connect", CONNECT_MS);
	if (connect(fd, (struct sockaddr *)&ss, len))
		err = errno;
	if (nonblock && err == EINPROGRESS)
		app_connect_wait(fd, CONNECT_MS, &err);
	app_op(rd, NULL, 0);
	sb_add(&rd->app_log, "connect %s after %ld ms",
	       err ? strerror_r(err, eb, sizeof(eb)) : "ok", now_ms() - t0);
	if (err) {
		app_op(rd, "close", IO_MS);
		close(fd);
		app_op(rd, NULL, 0);
		return NULL;
	}
	app_talk(rd, fd);
	return NULL;
}

static void app_start(struct round *rd, void *(*fn)(void *))
{
	char eb[64];

	errno = pthread_create(&rd->app, NULL, fn, rd);
	if (errno)
		sb_add(&rd->app_log, "no thread: %s",
		       strerror_r(errno, eb, sizeof(eb)));
	else
		rd->app_started = 1;
}

static void app_join(struct round *rd)
{
	if (rd->app_started)
		pthread_join(rd->app, NULL);
	rd->app_started = 0;
}

/* The peer is done: the application's accept stops waiting soon */
static void peer_done(struct round *rd)
{
	rd->peer_done_ms = now_ms();
	__atomic_store_n(&rd->peer_done, 1, __ATOMIC_RELEASE);
}

/* ------------------------------------------------------------------ */
/* the peer */

/* Data of the plan, what comes back within TAIL_MS, then the close */
static void peer_tail(struct round *rd, int fd)
{
	uint8_t buf[512];
	int got, end, err;
	char eb[64];

	if (fd < 0)
		return;
	if (rd->plan.data_len) {
		fill_bytes(buf, rd->plan.data_len, rd->plan.data_seed);
		if (send_all(fd, buf, rd->plan.data_len))
			sb_add(&rd->peer, ", data: %s",
			       strerror_r(errno, eb, sizeof(eb)));
	}
	got = recv_upto(fd, buf, sizeof(buf), TAIL_MS, &end, &err);
	sb_add(&rd->peer, ", %d bytes then %s", got,
	       end_words(end, err, eb, sizeof(eb)));
	close_fd(fd, rd->plan.reset);
}

/*
 * The Confirm our client would send to the Accept @acc (@len bytes;
 * NULL before any Accept): its version, first-contact bit, CHID, EID
 * and release; our GID or a foreign one and the token of the plan.
 */
static int build_confirm(uint8_t *b, const uint8_t *acc, int len,
			 const struct plan *pl)
{
	struct acc c = { .type = CLC_CONFIRM, .version = 2,
			 .chid = own_ism[0].chid, .token = pl->token };
	int fc = 1, out;

	c.gid = pl->own_gid ? own_ism[0].gid : FOREIGN_GID;
	c.gid_ext = pl->own_gid ? own_gid_ext() : FOREIGN_EXT;
	if (acc && len >= 24) {
		c.version = acc[7] >> 4 == 1 ? 1 : 2;
		fc = !!(acc[7] & 0x08);
		if (pl->token_kind == TOK_ACCEPTS)
			c.token = get64(acc + 16);
	}
	if (acc && len >= 78 && c.version == 2) {
		c.chid = get16(acc + 32);
		c.eid = acc + 34;
	}
	out = acc_build(b, &c);
	if (c.version == 1)
		return out;
	if (!fc || (acc && len == 114)) {
		out = fc ? 114 : 78;
		if (!fc)
			b[7] &= ~0x08;
		put16(b + 5, out);
		put32(b + out - 4, EYE_D);
	}
	if (fc && acc && len >= 78)
		b[75] = 2 << 4 | (acc[75] & 0x0f);	/* its release */
	return out;
}

/* An Accept to a Proposal with @eid (or none), for SMC-D */
static int build_accept(uint8_t *b, const struct plan *pl,
			const uint8_t *eid)
{
	struct acc a = { .type = CLC_ACCEPT, .version = pl->version,
			 .chid = own_ism[0].chid, .token = pl->token,
			 .eid = eid };

	a.gid = pl->own_gid ? own_ism[0].gid : FOREIGN_GID;
	a.gid_ext = pl->own_gid ? own_gid_ext() : FOREIGN_EXT;
	return acc_build(b, &a);
}

/* Client role, the peer's part after its connect */
static void client_peer(struct round *rd, int fd)
{
	const struct plan *pl = &rd->plan;
	uint8_t msg[MUT_MAX], rsp[CLC_MAX + 16];
	int len, got, end, err, type;

	len = prop_build(msg, sizeof(msg), &pl->prop);
	len = mutate_msg(msg, len, &pl->first);
	if (send_msg(rd, fd, msg, len, &pl->first))
		sb_add(&rd->peer, "proposal: send failed; ");
	if (pl->answer == ANS_EARLY) {
		len = mutate_msg(msg, build_confirm(msg, NULL, 0, pl),
				 &pl->second);
		send_msg(rd, fd, msg, len, &pl->second);
	}
	got = recv_clc(fd, rsp, sizeof(rsp), pl->answer_ms, &end, &err);
	type = note_clc(rd, "kernel", rsp, got, end, err);
	if (type != CLC_ACCEPT || pl->answer == ANS_EARLY)
		return;
	/* to nothing, the kernel closes after its CLC timeout */
	if (pl->answer != ANS_NOTHING) {
		if (pl->answer == ANS_CONFIRM)
			len = build_confirm(msg, rsp, got, pl);
		else
			len = build_decline(msg, pl);
		len = mutate_msg(msg, len, &pl->second);
		send_msg(rd, fd, msg, len, &pl->second);
	}
	got = recv_clc(fd, rsp, sizeof(rsp),
		       pl->answer == ANS_NOTHING ? pl->answer_ms : AFTER_MS,
		       &end, &err);
	note_clc(rd, ", then", rsp, got, end, err);
}

static void client_round(struct round *rd)
{
	uint16_t port = portbase + 2 * rd->w->idx, bound = 0;
	struct sockaddr_storage ss;
	socklen_t len;
	int fd;
	char eb[64];

	rd->app_lfd = round_socket(0, rd->plan.v6, SOCK_NONBLOCK);
	if (rd->app_lfd < 0 ||
	    round_listen(rd->app_lfd, rd->plan.v6, port, &bound)) {
		sb_add(&rd->peer, "no AF_SMC listener: %s",
		       strerror_r(errno, eb, sizeof(eb)));
		goto out;
	}
	if (bound != port)
		sb_add(&rd->peer, "port %u taken, %u; ", port, bound);
	app_start(rd, app_listener);
	fd = round_socket(1, rd->plan.v6, 0);
	if (fd >= 0)
		set_timeouts(fd, QUICK_MS);
	len = round_addr(rd->plan.v6, bound, &ss);
	if (fd < 0 || connect(fd, (struct sockaddr *)&ss, len)) {
		sb_add(&rd->peer, "connect: %s",
		       strerror_r(errno, eb, sizeof(eb)));
		close_fd(fd, 0);
		goto out;
	}
	client_peer(rd, fd);
	peer_tail(rd, fd);
out:
	peer_done(rd);
	app_join(rd);
	close_fd(rd->app_lfd, 0);
}

/* Server role, what the peer says to the Proposal; 0, or -1: closed */
static int server_answer(struct round *rd, int hfd, const uint8_t *prop,
			 int got)
{
	const struct plan *pl = &rd->plan;
	struct msg_plan twice = { .n = 1, .m[0].kind = MUT_TWICE };
	const struct msg_plan *mp = &pl->first;
	uint8_t msg[MUT_MAX];
	int len;

	switch (pl->answer) {
	case ANS_ACCEPT:
	case ANS_TWICE:
		len = build_accept(msg, pl, proposal_eid(prop, got));
		if (pl->answer == ANS_TWICE)
			mp = &twice;
		break;
	case ANS_DECLINE:
		len = build_decline(msg, pl);
		break;
	case ANS_GARBAGE:
		len = pl->garbage_len;
		fill_bytes(msg, len, pl->garbage_seed);
		break;
	case ANS_CLOSE:
		close_fd(hfd, pl->reset);
		return -1;
	default:
		return 0;
	}
	len = mutate_msg(msg, len, mp);
	if (send_msg(rd, hfd, msg, len, mp))
		sb_add(&rd->peer, ", send failed");
	return 0;
}

/* Server role, the peer's part once it has the connection */
static void server_peer(struct round *rd, int hfd)
{
	const struct plan *pl = &rd->plan;
	uint8_t msg[MUT_MAX], prop[CLC_MAX + 16], rsp[CLC_MAX + 16];
	int len, got, end, err;
	char why[160], eb[64];

	set_timeouts(hfd, QUICK_MS);
	if (pl->answer == ANS_EARLY) {
		len = mutate_msg(msg, build_accept(msg, pl, NULL), &pl->first);
		send_msg(rd, hfd, msg, len, &pl->first);
	}
	got = recv_clc(hfd, prop, CLC_MAX, QUICK_MS, &end, &err);
	if (check_proposal_frame(prop, got, why, sizeof(why)) < 0)
		sb_add(&rd->peer, "proposal: %s, %s", why,
		       end_words(end, err, eb, sizeof(eb)));
	else
		sb_add(&rd->peer, "proposal %d bytes", got);
	if (server_answer(rd, hfd, prop, got)) {
		sb_add(&rd->peer, ", closed");
		return;
	}
	if (pl->read_answer) {
		got = recv_clc(hfd, rsp, sizeof(rsp), AFTER_MS, &end, &err);
		note_clc(rd, ", then", rsp, got, end, err);
	}
	if (pl->hold) {
		peer_done(rd);
		app_join(rd);
	}
	peer_tail(rd, hfd);
}

static void server_round(struct round *rd)
{
	uint16_t port = portbase + 2 * rd->w->idx + 1;
	int lfd, hfd;
	char eb[64];

	lfd = round_socket(1, rd->plan.v6, SOCK_NONBLOCK);
	if (lfd < 0 || round_listen(lfd, rd->plan.v6, port, &rd->app_port)) {
		sb_add(&rd->peer, "no peer listener: %s",
		       strerror_r(errno, eb, sizeof(eb)));
		close_fd(lfd, 0);
		return;
	}
	if (rd->app_port != port)
		sb_add(&rd->peer, "port %u taken, %u; ", port, rd->app_port);
	app_start(rd, app_client);
	hfd = accept_within(lfd, QUICK_MS);
	if (hfd < 0)
		sb_add(&rd->peer, "no connection from the application");
	else
		server_peer(rd, hfd);
	close_fd(lfd, 0);
	peer_done(rd);
	app_join(rd);
}

/* ------------------------------------------------------------------ */
/* workers, the watchdog, the counts */

static void count(unsigned long *c, int yes)
{
	if (yes)
		__atomic_add_fetch(c, 1, __ATOMIC_RELAXED);
}

static void run_round(struct worker *w, unsigned long n)
{
	struct round *rd = calloc(1, sizeof(*rd));
	long t0;

	if (!rd) {
		printf("round %lu: out of memory\n", n);
		return;
	}
	rd->n = n;
	rd->w = w;
	rd->seed = round_seed(run_seed, n);
	rng_seed(&rd->rng, rd->seed, 0);
	rd->role = role_of(n);
	rd->app_lfd = -1;
	plan_round(rd);
	printf("round %lu seed 0x%016llx role %s mutations: %s: %s\n", n,
	       (unsigned long long)rd->seed,
	       rd->role == ROLE_CLIENT ? "client" : "server",
	       rd->plan.v6 ? "::1" : "127.0.0.1", rd->desc.s);
	fflush(stdout);

	t0 = now_ms();
	__atomic_store_n(&w->round, n, __ATOMIC_RELAXED);
	__atomic_store_n(&w->round_start, t0, __ATOMIC_RELEASE);
	if (rd->role == ROLE_CLIENT)
		client_round(rd);
	else
		server_round(rd);
	__atomic_store_n(&w->round_start, 0, __ATOMIC_RELEASE);

	count(&cnt_rounds, 1);
	count(&cnt_accepted, rd->accepted);
	count(&cnt_declined, rd->declined);
	count(&cnt_fellback, rd->fell_back);
	count(&cnt_timedout, rd->timed_out);
	printf("round %lu: %s; app: %s; %ld ms\n", n, rd->peer.s,
	       rd->app_log.s, now_ms() - t0);
	fflush(stdout);
	memcpy(w->prev, w->cur, w->cur_len);
	w->prev_len = w->cur_len;
	free(rd);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	unsigned long k;

	if (only_round) {
		run_round(w, only_round_n);
	} else {
		for (k = 0; now_ms() < run_end_ms; k++)
			run_round(w, k * nworkers + w->idx);
	}
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* A call of the application, or a round, stuck: the report, exit 1 */
static void hang(const struct worker *w, const char *what, long ms)
{
	printf("HANG round %lu: %s %ld s past its deadline\n",
	       __atomic_load_n(&w->round, __ATOMIC_RELAXED), what, ms / 1000);
	fflush(stdout);
	exit(1);
}

/* Until the workers are done: exit 1 on an application call stuck */
static void watch(struct worker *ws, int n)
{
	int i, busy = 1;
	const char *op;
	long now, t;

	while (busy) {
		msleep(200);
		busy = 0;
		now = now_ms();
		for (i = 0; i < n; i++) {
			struct worker *w = &ws[i];

			busy |= !__atomic_load_n(&w->done, __ATOMIC_ACQUIRE);
			op = __atomic_load_n(&w->op, __ATOMIC_ACQUIRE);
			t = __atomic_load_n(&w->op_deadline, __ATOMIC_RELAXED);
			if (op && now - t > HANG_MS)
				hang(w, op, now - t);
			t = __atomic_load_n(&w->round_start, __ATOMIC_ACQUIRE);
			if (t && now - t > ROUND_MS + HANG_MS)
				hang(w, "the round", now - t - ROUND_MS);
		}
	}
}

/* The AF_SMC sockets and DMBs of the start back within SETTLE_MS */
static int settled(int base, int have_lo, const struct dmbs *dmb0)
{
	long t0 = now_ms();
	struct dmbs d = { -1, -1 };
	int n, dmb_ok;

	for (;;) {
		n = smc_socket_count();
		dmb_ok = !have_lo || (!lo_read(&d) && d.reg == dmb0->reg &&
				      d.att == dmb0->att);
		if (n == base && dmb_ok)
			return 0;
		if (now_ms() - t0 > SETTLE_MS)
			break;
		msleep(200);
	}
	if (n != base)
		printf("mutate: %d AF_SMC sockets %d s after the end, %d before\n",
		       n, SETTLE_MS / 1000, base);
	if (!dmb_ok)
		printf("mutate: DMBs registered %ld attached %ld, before %ld/%ld\n",
		       d.reg, d.att, dmb0->reg, dmb0->att);
	return -1;
}

/*
 * Our GIDs, from a Proposal of the kernel's AF_SMC client to the peer.
 * 0; 4 if it offers SMC-D only as v1 or not at all; 1 if it did not
 * come or is malformed.
 */
static int learn_own_gids(char *why, size_t wl)
{
	uint8_t prop[CLC_MAX + 16], decl[DECL_LEN_V2];
	struct sockaddr_in a;
	int lfd, cfd, hfd = -1, got, end, err, rc = 1;
	uint16_t port;

	snprintf(why, wl, "no connection from an AF_SMC client");
	cg_enter_peer();
	lfd = listen_on(AF_INET, 0, 0, &port);
	cg_enter_app();
	cfd = socket(AF_SMC, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
		     SMCPROTO_SMC);
	a = lo_addr(port);
	if (lfd >= 0 && cfd >= 0 &&
	    (!connect(cfd, (struct sockaddr *)&a, sizeof(a)) ||
	     errno == EINPROGRESS)) {
		set_nonblock(lfd, 1);
		hfd = accept_within(lfd, QUICK_MS);
	}
	if (hfd >= 0) {
		set_timeouts(hfd, QUICK_MS);
		got = recv_clc(hfd, prop, CLC_MAX, QUICK_MS, &end, &err);
		if (!got)
			snprintf(why, wl, "no Proposal: %s",
				 end == 'T' ? "timeout" : "closed");
		else if (check_proposal_frame(prop, got, why, wl) < 0)
			rc = 1;
		else if (prop[7] >> 4 < 2 || (prop[7] >> 2 & 3) != TYPE_D)
			rc = 4;
		else
			rc = check_proposal(prop, got, why, wl) ? 1 : 0;
		if (rc == 4)
			snprintf(why, wl, "byte 7 is 0x%02x, not v2 with D only",
				 prop[7]);
		send_all(hfd, decl, decline_build(decl, 2, R_PEERNOSMC));
		close(hfd);
	}
	if (lfd >= 0)
		close(lfd);
	if (cfd >= 0)
		close(cfd);
	return rc;
}

static int probe_v6(void)
{
	struct sockaddr_storage ss;
	socklen_t len = round_addr(1, 0, &ss);
	int fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0), ok;

	ok = fd >= 0 && !bind(fd, (struct sockaddr *)&ss, len);
	if (fd >= 0)
		close(fd);
	return ok;
}

static int env_int(const char *name, long lo, long hi, long def, long *val)
{
	const char *s = getenv(name);
	char *end;

	*val = def;
	if (!s || !*s)
		return 0;
	errno = 0;
	*val = strtol(s, &end, 0);
	if (errno || *end || *val < lo || *val > hi) {
		fprintf(stderr, "mutate: %s=%s: not in %ld..%ld\n", name, s,
			lo, hi);
		return -1;
	}
	return 0;
}

static int parse_args(int argc, char **argv, unsigned long *secs)
{
	unsigned long port = PORTBASE_DEF;
	long threads, round;
	char *end, *end2, *end3 = NULL;

	errno = 0;
	run_seed = strtoull(argv[2], &end, 0);
	*secs = strtoul(argv[3], &end2, 10);
	if (argc == 5)
		port = strtoul(argv[4], &end3, 10);
	if (errno || *end || *end2 || (end3 && *end3) || end == argv[2] ||
	    end2 == argv[3] || *secs > 7 * 86400 || !port ||
	    port > 65535 - 2 * WORKERS_MAX) {
		fprintf(stderr, "usage: %s mutate SEED SECONDS [PORTBASE]\n",
			argv[0]);
		return -1;
	}
	portbase = port;
	if (env_int("HOSTILE_MUTATE_THREADS", 1, WORKERS_MAX, WORKERS_DEF,
		    &threads) ||
	    env_int("HOSTILE_MUTATE_ROUND", 0, LONG_MAX, -1, &round))
		return -1;
	nworkers = threads;
	only_round = round >= 0;
	only_round_n = round;
	return 0;
}

static int run_workers(void)
{
	struct worker *ws = calloc(WORKERS_MAX, sizeof(*ws));
	int i, n = only_round ? 1 : nworkers, started = 0;

	if (!ws)
		return -1;
	for (i = 0; i < n; i++) {
		ws[i].idx = only_round ? (int)(only_round_n % nworkers) : i;
		if (pthread_create(&ws[i].thread, NULL, worker_main, &ws[i])) {
			ws[i].done = 1;
			continue;
		}
		ws[i].started = 1;
		started++;
	}
	watch(ws, n);
	for (i = 0; i < n; i++)
		if (ws[i].started)
			pthread_join(ws[i].thread, NULL);
	free(ws);
	return started ? 0 : -1;
}

int mutate_main(int argc, char **argv)
{
	struct dmbs dmb0 = { 0, 0 };
	struct sbuf sb = { .len = 0 };
	unsigned long secs;
	int base, have_lo, rc;
	char why[256];
	long shared;

	if (parse_args(argc, argv, &secs) ||
	    env_int("HOSTILE_MUTATE_SHARED", 0, 1, 0, &shared))
		return 2;
	common_setup();
	if (!smcd_param()) {
		printf("mutate: SKIP: module parameter smcd is not 1\n");
		return 4;
	}
	base = smc_socket_count();
	if (base < 0) {
		printf("mutate: SKIP: no smc_diag dump: %s\n", strerror(-base));
		return 4;
	}
	have_lo = lo_available() && !lo_read(&dmb0);
	have_v6 = probe_v6();
	rc = learn_own_gids(why, sizeof(why));
	if (rc) {
		printf("mutate: %sthe kernel's Proposal: %s\n",
		       rc == 4 ? "SKIP: no SMC-Dv2 in " : "no own GID from ",
		       why);
		return rc;
	}
	sb_add(&sb, "seed 0x%016llx, %lu s, %d workers, ports from %u",
	       (unsigned long long)run_seed, secs, nworkers, portbase);
	sb_add(&sb, ", own GID 0x%016llx CHID 0x%04x, %d AF_SMC sockets",
	       (unsigned long long)own_ism[0].gid, own_ism[0].chid, base);
	if (have_lo)
		sb_add(&sb, ", DMBs %ld/%ld", dmb0.reg, dmb0.att);
	else
		sb_add(&sb, ", no %s", LO_DEBUGFS);
	printf("mutate: %s%s\n", sb.s, have_v6 ? "" : ", no ::1");
	run_end_ms = now_ms() + secs * 1000;
	if (run_workers()) {
		printf("mutate: cannot start the workers\n");
		return 1;
	}
	rc = !shared && settled(base, have_lo, &dmb0);
	printf("mutate: %lu rounds, %lu accepted, %lu declined, %lu fell back, ",
	       cnt_rounds, cnt_accepted, cnt_declined, cnt_fellback);
	printf("%lu timed out\n", cnt_timedout);
	return rc;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness for the SMC wire-format parsers.  Built once per
 * target with -DFUZZ_<TARGET>: every successful parse is rebuilt with the
 * matching builder and parsed again; the two views must be equal.
 */
#include <stdio.h>
#include <stdlib.h>

#include "smc_clc_wire.h"
#include "smc_cdc_wire.h"
#include "smc_llc_wire.h"
#ifdef FUZZ_FOLD
#include "smc_fold_sim.h"
#endif

#define FUZZ_ASSERT(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "assertion failed: %s (line %d)\n",	\
			#cond, __LINE__);				\
		abort();						\
	}								\
} while (0)

/* exact-size heap copy, so that any over-read trips ASan */
static u8 *dup_input(const u8 *data, size_t size)
{
	u8 *buf = malloc(size ? size : 1);

	memcpy(buf, data, size);
	return buf;
}

static void fuzz_hdr(const u8 *buf, size_t size)
{
	struct smc_clc_hdr h;

	if (!smc_clc_parse_hdr(buf, size, &h)) {
		FUZZ_ASSERT(h.type >= 1 && h.type <= 4);
		FUZZ_ASSERT(h.version && h.length >= 12);
	}
}

#ifdef FUZZ_PROPOSAL
static void fuzz_one(const u8 *buf, size_t size)
{
	struct smc_clc_proposal p, q;
	u8 out[SMC_CLC_PROPOSAL_MAX_LEN];
	int len;

	if (smc_clc_parse_proposal(buf, size, &p))
		return;
	len = smc_clc_build_proposal(out, sizeof(out), &p);
	if (len == -EINVAL) {
		/* GID byte 7 would be taken for the IPv6 count */
		FUZZ_ASSERT(p.typev1 == SMC_TYPE_N &&
			    (p.ism_gid & 0xff) > SMC_CLC_MAX_V6_PREFIX);
		return;
	}
	FUZZ_ASSERT(len > 0 && len <= SMC_CLC_PROPOSAL_MAX_LEN);
	FUZZ_ASSERT(!smc_clc_parse_proposal(out, len, &q));
	/* builders lay areas out at the standard offsets */
	p.smcd_area = true;
	p.smcd_v2_ext = p.version >= SMC_V2 && smc_path_has_d(p.typev2);
	FUZZ_ASSERT(!memcmp(&p, &q, sizeof(q)));
}
#endif

#ifdef FUZZ_ACCEPT
static void fuzz_one(const u8 *buf, size_t size)
{
	struct smc_clc_accept a, q;
	u8 out[SMC_CLC_ACCEPT_CONFIRM_MAX_LEN];
	int len;

	if (smc_clc_parse_accept(buf, size, &a))
		return;
	len = smc_clc_build_accept(out, sizeof(out), &a);
	FUZZ_ASSERT(len > 0);
	FUZZ_ASSERT(!smc_clc_parse_accept(out, len, &q));
	FUZZ_ASSERT(!memcmp(&a, &q, sizeof(q)));
}
#endif

#ifdef FUZZ_DECLINE
static void fuzz_one(const u8 *buf, size_t size)
{
	struct smc_clc_decline d, q;
	u8 out[SMC_CLC_DECLINE_LEN_V2];
	int len;

	if (smc_clc_parse_decline(buf, size, &d))
		return;
	len = smc_clc_build_decline(out, sizeof(out), &d);
	FUZZ_ASSERT(len == (d.version == 1 ? 28 : 44));
	FUZZ_ASSERT(!smc_clc_parse_decline(out, len, &q));
	/* the builder derives these two from version and reason */
	d.out_of_sync = d.peer_diagnosis == SMC_CLC_DECL_SYNCERR;
	d.os_type = d.version == 1 ? 0 : SMC_CLC_OS_LINUX;
	FUZZ_ASSERT(!memcmp(&d, &q, sizeof(q)));
}
#endif

#ifdef FUZZ_LLC
/* parse, rebuild, parse: the same view (the length aside) and bytes */
static void fuzz_one(const u8 *buf, size_t size)
{
	static u8 out[SMC_LLC_MAX_LEN], out2[SMC_LLC_MAX_LEN];
	static struct smc_llc_rkey rk[256];
	struct smc_llc_msg m, q;
	unsigned int i;
	int len, len2;

	if (smc_llc_parse(buf, size, &m))
		return;
	FUZZ_ASSERT(m.hdr.length >= SMC_LLC_MSG_LEN);
	if (m.hdr.type == SMC_LLC_ADD_LINK && m.add_link.v2_ext) {
		for (i = 0; i < m.add_link.rkey_cnt; i++)
			FUZZ_ASSERT(!smc_llc_add_link_rkey(buf, size, &m, i,
							   &rk[i]));
		FUZZ_ASSERT(smc_llc_add_link_rkey(buf, size, &m, i, &rk[i]));
	}
	len = smc_llc_build(out, sizeof(out), &m, rk);
	FUZZ_ASSERT(len >= SMC_LLC_MSG_LEN && len <= (int)sizeof(out));
	FUZZ_ASSERT(!smc_llc_parse(out, len, &q));
	FUZZ_ASSERT(q.hdr.length == len);
	q.hdr.length = m.hdr.length;
	FUZZ_ASSERT(!memcmp(&m, &q, sizeof(q)));
	len2 = smc_llc_build(out2, sizeof(out2), &q, rk);
	FUZZ_ASSERT(len2 == len && !memcmp(out, out2, len));
}
#endif

#ifdef FUZZ_CDC
static void fuzz_one(const u8 *buf, size_t size)
{
	struct smc_cursor c, o;
	struct smcr_cdc_msg m, mq;
	struct smcd_cdc_hdr h, hq;
	u8 out[SMCR_CDC_MSG_LEN];
	u32 ring;

	if (!smcr_cdc_parse(buf, size, &m)) {
		FUZZ_ASSERT(smcr_cdc_build(out, sizeof(out), &m) == 44);
		FUZZ_ASSERT(!smcr_cdc_parse(out, sizeof(out), &mq));
		FUZZ_ASSERT(!memcmp(&m, &mq, sizeof(mq)));
	}
	if (!smcd_cdc_parse(buf, size, &h)) {
		FUZZ_ASSERT(smcd_cdc_build(out, sizeof(out), &h) == 32);
		FUZZ_ASSERT(!smcd_cdc_parse(out, sizeof(out), &hq));
		h.type = SMC_CDC_MSG_TYPE;
		FUZZ_ASSERT(!memcmp(&h, &hq, sizeof(hq)));
		FUZZ_ASSERT(smcd_cdc_pack_cons(&h) ==
			    smcd_cdc_pack_cons(&hq));
	}
	/* cursor arithmetic on in-range cursors */
	if (size < 16)
		return;
	ring = smc_get_be32(buf) % (1U << 29) + 1;
	o.wrap = smc_get_be16(buf + 4);
	o.count = smc_get_be32(buf + 6) % ring;
	c = o;
	smc_curs_add(ring, &c, smc_get_be32(buf + 10) % (ring + 1));
	FUZZ_ASSERT(c.count < ring);
	FUZZ_ASSERT(smc_curs_diff(ring, &o, &c) <= ring);
	FUZZ_ASSERT(smc_curs_free(ring, &o, &c) + smc_curs_diff(ring, &o, &c)
		    == ring);
	FUZZ_ASSERT(smc_curs_comp(ring, &o, &c) >= 0 || o.wrap == 0xFFFF);
	FUZZ_ASSERT(!smc_curs_stale(&o, &c));
	smc_cdc_cons_update_needed(ring, buf[14] * 1000U, buf[15] * 1000U,
				   buf[14] & 1, false, buf[15] & 1);
}
#endif

#ifdef FUZZ_FOLD
/*
 * A writer and a reader of a ring folded onto its window, taking turns
 * as the input says (smc_fold_sim.h): the first two bytes pick the
 * ring's shape, the rest is the script.  Any byte written over an
 * unread one, or read from the wrong place, aborts.
 */
static void fuzz_one(const u8 *buf, size_t size)
{
	struct fold_sim s;
	u32 max, len;

	if (size < 2)
		return;
	max = 256U << (buf[0] % 6);
	len = max / 2 + 1 + buf[1] * (max / 2 - 1) / 255;
	if (fold_sim_init(&s, len, 128U << (buf[0] / 8 % 4)))
		return;
	if (fold_sim_run(&s, buf + 2, size - 2)) {
		fprintf(stderr, "len %u fold %u: %s\n", s.len, s.fold, s.err);
		abort();
	}
	fold_sim_free(&s);
}
#endif

/* FUZZ_ENTRY is libFuzzer's entry point name, set by the Makefile */
int FUZZ_ENTRY(const u8 *data, size_t size);

int FUZZ_ENTRY(const u8 *data, size_t size)
{
	u8 *buf = dup_input(data, size);

	fuzz_hdr(buf, size);
	fuzz_one(buf, size);
	free(buf);
	return 0;
}

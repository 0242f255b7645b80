// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests for the SMC wire-format layer (net/smc/smc_*_wire.c).
 *
 * Usage: smc_wire_test [--count] [--extra N] [--corpus DIR]
 *   --count	  print the number of tests and exit
 *   --extra N	  add N to the KTAP plan (results printed by the caller)
 *   --corpus DIR write the valid messages built here as fuzzer seeds
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "smc_clc_wire.h"
#include "smc_cdc_wire.h"
#include "smc_llc_wire.h"
#include "smc_close_fsm.h"
#include "smcr_cq_pick.h"
#include "smcr_add_budget.h"
#include "smc_pnetid.h"
#include "smc_fold_sim.h"

static int failures;
static const char *corpus_dir;

#define CHECK(cond) do {						\
	if (!(cond)) {							\
		printf("# %s:%d: check failed: %s\n", __FILE__,		\
		       __LINE__, #cond);				\
		failures++;						\
	}								\
} while (0)

#define CHECK_EQ(a, b) do {						\
	long long _x = (long long)(a), _y = (long long)(b);		\
	if (_x != _y) {							\
		printf("# %s:%d: %s == %lld, expected %s == %lld\n",	\
		       __FILE__, __LINE__, #a, _x, #b, _y);		\
		failures++;						\
	}								\
} while (0)

static void corpus_add(const char *kind, const u8 *buf, size_t len)
{
	static unsigned int seq;
	char path[512];
	FILE *f;

	if (!corpus_dir)
		return;
	snprintf(path, sizeof(path), "%s/%s", corpus_dir, kind);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/seed-%04u", corpus_dir, kind,
		 seq++);
	f = fopen(path, "wb");
	if (!f)
		return;
	fwrite(buf, 1, len, f);
	fclose(f);
}

static void fill(u8 *p, size_t n, u8 seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = seed + i * 7;
}

static void eid_set(u8 *eid, const char *s)
{
	memset(eid, ' ', SMC_CLC_EID_LEN);
	memcpy(eid, s, strlen(s));
}

/* ---------- CLC header ---------- */

static void test_hdr_valid(void)
{
	u8 b[12] = { 0xE2, 0xD4, 0xC3, 0xD9, 1, 0, 12, 0x23 };
	struct smc_clc_hdr h;
	int t;

	for (t = 1; t <= 4; t++) {
		b[4] = t;
		CHECK_EQ(smc_clc_parse_hdr(b, sizeof(b), &h), 0);
		CHECK_EQ(h.type, t);
	}
	CHECK_EQ(h.length, 12);
	CHECK_EQ(h.version, 2);
	CHECK_EQ(h.typev2, 0);
	CHECK_EQ(h.typev1, 3);
	CHECK_EQ(h.eyecatcher, SMC_CLC_EYECATCHER_R);
	b[3] = 0xC4;
	CHECK_EQ(smc_clc_parse_hdr(b, sizeof(b), &h), 0);
	CHECK_EQ(h.eyecatcher, SMC_CLC_EYECATCHER_D);
}

static void test_hdr_reject(void)
{
	u8 b[12] = { 0xE2, 0xD4, 0xC3, 0xD9, 1, 0, 12, 0x20 };
	struct smc_clc_hdr h;
	size_t l;

	for (l = 0; l < SMC_CLC_HDR_LEN; l++)
		CHECK_EQ(smc_clc_parse_hdr(b, l, &h), -EPROTO);
	memcpy(b, "SMCR", 4);	/* ASCII, not EBCDIC */
	CHECK_EQ(smc_clc_parse_hdr(b, sizeof(b), &h), -EPROTO);
	b[0] = 0xE2; b[1] = 0xD4; b[2] = 0xC3; b[3] = 0xD9;
	b[4] = 0;
	CHECK_EQ(smc_clc_parse_hdr(b, sizeof(b), &h), -EPROTO);
	b[4] = 5;
	CHECK_EQ(smc_clc_parse_hdr(b, sizeof(b), &h), -EPROTO);
	b[4] = 1;
	b[7] = 0x03;	/* version 0 */
	CHECK_EQ(smc_clc_parse_hdr(b, sizeof(b), &h), -EPROTO);
	b[7] = 0x20;
	b[6] = 11;
	CHECK_EQ(smc_clc_parse_hdr(b, sizeof(b), &h), -EPROTO);
}

/* ---------- Proposal ---------- */

#define LO_GID		0x0123456789abcdefULL
#define LO_GID_EXT	0xfedcba9876543210ULL

/* The 6.12 loopback-ism, one UEID, IPv4 client of wire-clc.md 3.10 */
static void example_proposal(struct smc_clc_proposal *p)
{
	memset(p, 0, sizeof(*p));
	p->version = SMC_V2;
	p->typev1 = SMC_TYPE_N;
	p->typev2 = SMC_TYPE_D;
	p->eid_cnt = 1;
	eid_set(p->eids[0], "SMC-EID.1");
	p->release = SMC_CLC_RELEASE_1;
	p->feature_mask = SMC_CLC_FEAT_EMULATED_ISM;
	smc_clc_prop_add_ism(p, LO_GID, LO_GID_EXT, SMC_ISM_LOOPBACK_CHID);
}

static void test_proposal_example(void)
{
	u8 exp[224], buf[SMC_CLC_PROPOSAL_MAX_LEN];
	struct smc_clc_proposal p;
	int len;

	/* expected bytes, straight from the table */
	memset(exp, 0, sizeof(exp));
	exp[0] = 0xE2; exp[1] = 0xD4; exp[2] = 0xC3; exp[3] = 0xD9;
	exp[4] = 0x01;
	exp[5] = 0x00; exp[6] = 0xE0;
	exp[7] = 0x26;
	exp[50] = 0x00; exp[51] = 0x1C;
	exp[80] = 0x01;
	exp[81] = 0x02;
	exp[83] = 0x10;
	exp[86] = 0x00; exp[87] = 0x40;
	exp[106] = 0x00; exp[107] = 0x01;
	memcpy(exp + 120, "SMC-EID.1                       ", 32);
	memcpy(exp + 200, "\x01\x23\x45\x67\x89\xab\xcd\xef\xff\xff", 10);
	memcpy(exp + 210, "\xfe\xdc\xba\x98\x76\x54\x32\x10\xff\xff", 10);
	exp[220] = 0xE2; exp[221] = 0xD4; exp[222] = 0xC3; exp[223] = 0xD9;

	example_proposal(&p);
	CHECK_EQ(smc_clc_proposal_len(&p), 224);
	memset(buf, 0xAA, sizeof(buf));
	len = smc_clc_build_proposal(buf, sizeof(buf), &p);
	CHECK_EQ(len, 224);
	CHECK(!memcmp(buf, exp, sizeof(exp)));
	CHECK_EQ(buf[224], 0xAA);	/* nothing written past the end */
	corpus_add("proposal", buf, len);
}

static void test_proposal_example_parse(void)
{
	struct smc_clc_proposal p, q;
	struct smc_clc_ism_dev dev;
	u8 buf[SMC_CLC_PROPOSAL_MAX_LEN];
	unsigned int pos = 0;
	int len;

	example_proposal(&p);
	len = smc_clc_build_proposal(buf, sizeof(buf), &p);
	CHECK_EQ(smc_clc_parse_proposal(buf, len, &q), 0);
	CHECK_EQ(q.version, 2);
	CHECK_EQ(q.typev1, SMC_TYPE_N);
	CHECK_EQ(q.typev2, SMC_TYPE_D);
	CHECK(q.v2_ext && q.smcd_v2_ext && q.smcd_area);
	CHECK_EQ(q.eid_cnt, 1);
	CHECK_EQ(q.gid_cnt, 2);
	CHECK_EQ(q.release, 1);
	CHECK_EQ(q.feature_mask, 1);
	CHECK(!memcmp(q.eids[0], p.eids[0], SMC_CLC_EID_LEN));
	CHECK(smc_clc_prop_next_ism(&q, &pos, &dev));
	CHECK_EQ(dev.chid, 0xFFFF);
	CHECK(dev.gid == LO_GID && dev.gid_ext == LO_GID_EXT && !dev.native);
	CHECK(!smc_clc_prop_next_ism(&q, &pos, &dev));
}

/* A Proposal offering everything, with IPv6 prefixes */
static void full_proposal(struct smc_clc_proposal *p, u8 n6, u8 neid,
			  u8 ngid)
{
	unsigned int i;

	memset(p, 0, sizeof(*p));
	p->version = SMC_V2;
	p->typev1 = SMC_TYPE_B;
	p->typev2 = SMC_TYPE_B;
	fill(p->peer_id, sizeof(p->peer_id), 1);
	fill(p->roce_gid, sizeof(p->roce_gid), 2);
	fill(p->roce_mac, sizeof(p->roce_mac), 3);
	p->smcd_area = true;
	p->ism_gid = 0x1122334455667788ULL;
	p->ism_chid = 0x0123;
	p->ipv6_cnt = n6;
	for (i = 0; i < n6; i++) {
		fill(p->ipv6[i].prefix, 16, 10 + i);
		p->ipv6[i].prefix_len = 64 + i;
	}
	p->v2_ext = true;
	p->eid_cnt = neid;
	for (i = 0; i < neid; i++)
		eid_set(p->eids[i], i & 1 ? "ODD-EID" : "EVEN.EID");
	p->release = 1;
	p->seid_flag = true;
	fill(p->roce_v2_gid, 16, 4);
	p->max_conns = 255;
	p->max_links = 2;
	p->feature_mask = 1;
	p->smcd_v2_ext = true;
	fill(p->seid, sizeof(p->seid), 5);
	p->gid_cnt = ngid;
	for (i = 0; i < ngid; i++) {
		p->gidchid[i].gid = 0xA000000000000000ULL + i;
		p->gidchid[i].chid = 0x100 + i;
	}
}

static void roundtrip_proposal(const struct smc_clc_proposal *p, int explen)
{
	u8 buf[SMC_CLC_PROPOSAL_MAX_LEN];
	struct smc_clc_proposal q;
	int len;

	len = smc_clc_build_proposal(buf, sizeof(buf), p);
	CHECK_EQ(len, explen);
	if (len < 0)
		return;
	CHECK_EQ(smc_clc_parse_proposal(buf, len, &q), 0);
	CHECK(!memcmp(p, &q, sizeof(q)));
	corpus_add("proposal", buf, len);
}

static void test_proposal_roundtrip_full(void)
{
	struct smc_clc_proposal p;

	full_proposal(&p, 8, 8, 8);
	roundtrip_proposal(&p, SMC_CLC_PROPOSAL_MAX_LEN);
	full_proposal(&p, 0, 0, 0);
	roundtrip_proposal(&p, 80 + 8 + 40 + 48 + 4);
	full_proposal(&p, 3, 2, 5);
	roundtrip_proposal(&p, 80 + 8 + 51 + 40 + 64 + 48 + 50 + 4);
}

static void test_proposal_roundtrip_variants(void)
{
	struct smc_clc_proposal p;

	/* IPv4, SMC-R v1 only, no v2 */
	memset(&p, 0, sizeof(p));
	p.version = 2;
	p.typev1 = SMC_TYPE_R;
	p.typev2 = SMC_TYPE_N;
	p.smcd_area = true;
	fill(p.peer_id, 8, 9);
	p.ipv4_subnet = 0xC0A80100;
	p.ipv4_prefix_len = 24;
	roundtrip_proposal(&p, 92);

	/* SMC-Rv2 only */
	full_proposal(&p, 0, 1, 0);
	p.typev1 = SMC_TYPE_N;
	p.typev2 = SMC_TYPE_R;
	p.ism_gid = 0;
	p.ism_chid = 0;
	p.seid_flag = false;
	p.smcd_v2_ext = false;
	memset(p.seid, 0, sizeof(p.seid));
	roundtrip_proposal(&p, 80 + 40 + 32 + 4);

	/* old-style version 1 Proposal */
	memset(&p, 0, sizeof(p));
	p.version = 1;
	p.typev1 = SMC_TYPE_D;
	p.smcd_area = true;
	p.ism_gid = 42;
	p.ism_chid = 7;
	p.ipv6_cnt = 1;
	p.ipv6[0].prefix_len = 48;
	roundtrip_proposal(&p, 80 + 8 + 17 + 4);

	/* nothing offered: still a well-formed v2 Proposal */
	memset(&p, 0, sizeof(p));
	p.version = 2;
	p.typev1 = SMC_TYPE_N;
	p.typev2 = SMC_TYPE_N;
	p.smcd_area = true;
	roundtrip_proposal(&p, 84);
}

static void test_proposal_offsets(void)
{
	u8 buf[SMC_CLC_PROPOSAL_MAX_LEN];
	struct smc_clc_proposal p;
	int len;

	full_proposal(&p, 3, 2, 4);
	len = smc_clc_build_proposal(buf, sizeof(buf), &p);
	CHECK_EQ(len, 80 + 8 + 51 + 40 + 64 + 48 + 40 + 4);
	CHECK_EQ(smc_get_be16(buf + 38), 40);
	CHECK_EQ(smc_get_be16(buf + 50), 28 + 8 + 17 * 3);
	CHECK_EQ(smc_get_be16(buf + 52 + 28 + 8 + 51 + 6), 32 + 32 * 2);
	CHECK_EQ(buf[7], 0x2F);
	CHECK_EQ(buf[80 + 7], 3);		/* IPv6 count */
	CHECK_EQ(buf[80 + 8 + 16], 64);		/* first prefix length */
	CHECK_EQ(buf[139 + 3], 0x11);		/* release 1, SEID */
	CHECK_EQ(buf[139 + 24], 255);
	CHECK_EQ(buf[139 + 25], 2);
	CHECK_EQ(smc_get_be32(buf + len - 4), SMC_CLC_EYECATCHER_R);

	/* v1 only: no v2 offset */
	p.typev2 = SMC_TYPE_N;
	len = smc_clc_build_proposal(buf, sizeof(buf), &p);
	CHECK_EQ(len, 80 + 8 + 51 + 4);
	CHECK_EQ(smc_get_be16(buf + 50), 0);
	/* SMC-R v2 only: no SMC-Dv2 offset, IP offset 0 */
	p.typev1 = SMC_TYPE_N;
	p.typev2 = SMC_TYPE_R;
	p.ism_gid = 0;
	len = smc_clc_build_proposal(buf, sizeof(buf), &p);
	CHECK_EQ(len, 80 + 40 + 64 + 4);
	CHECK_EQ(smc_get_be16(buf + 38), 0);
	CHECK_EQ(smc_get_be16(buf + 50), 28);
	CHECK_EQ(smc_get_be16(buf + 80 + 6), 0);
	CHECK_EQ(buf[81], 0);			/* no GID entries */
}

/* Every prefix of a valid message must be rejected. */
static void check_truncations_max(int (*parse)(const u8 *, size_t, void *),
				  const u8 *buf, size_t len, void *view,
				  size_t max)
{
	u8 *copy;
	size_t l;

	for (l = 0; l < len; l++) {
		/* exact-size heap copy so ASan sees any over-read */
		copy = malloc(l ? l : 1);
		memcpy(copy, buf, l);
		if (parse(copy, l, view) != -EPROTO && l < max) {
			printf("# truncated to %zu of %zu accepted\n", l, len);
			failures++;
		}
		free(copy);
	}
}

static void check_truncations(int (*parse)(const u8 *, size_t, void *),
			      const u8 *buf, size_t len, void *view)
{
	check_truncations_max(parse, buf, len, view, len);
}

static int parse_prop(const u8 *b, size_t l, void *v)
{
	return smc_clc_parse_proposal(b, l, v);
}

static int parse_acc(const u8 *b, size_t l, void *v)
{
	return smc_clc_parse_accept(b, l, v);
}

static int parse_decl(const u8 *b, size_t l, void *v)
{
	return smc_clc_parse_decline(b, l, v);
}

static void test_proposal_truncated(void)
{
	u8 buf[SMC_CLC_PROPOSAL_MAX_LEN];
	struct smc_clc_proposal p, q;
	int len;

	full_proposal(&p, 8, 8, 8);
	len = smc_clc_build_proposal(buf, sizeof(buf), &p);
	check_truncations(parse_prop, buf, len, &q);
	example_proposal(&p);
	len = smc_clc_build_proposal(buf, sizeof(buf), &p);
	check_truncations(parse_prop, buf, len, &q);
}

static void test_proposal_bad_length(void)
{
	u8 buf[SMC_CLC_PROPOSAL_MAX_LEN + 64];
	struct smc_clc_proposal p, q;
	int len;

	example_proposal(&p);
	len = smc_clc_build_proposal(buf, sizeof(buf), &p);
	/* length field larger than the bytes received */
	smc_put_be16(buf + 5, len + 1);
	CHECK_EQ(smc_clc_parse_proposal(buf, len, &q), -EPROTO);
	smc_put_be16(buf + 5, 0xFFFF);
	CHECK_EQ(smc_clc_parse_proposal(buf, sizeof(buf), &q), -EPROTO);
	/* length not matching the counts, trailer moved along */
	len = smc_clc_build_proposal(buf, sizeof(buf), &p);
	smc_put_be16(buf + 5, len + 4);
	smc_put_be32(buf + len, SMC_CLC_EYECATCHER_R);
	CHECK_EQ(smc_clc_parse_proposal(buf, len + 4, &q), -EPROTO);
	smc_put_be16(buf + 5, len - 10);
	smc_put_be32(buf + len - 14, SMC_CLC_EYECATCHER_R);
	CHECK_EQ(smc_clc_parse_proposal(buf, len, &q), -EPROTO);
	/* extra bytes after a valid message are not part of it */
	len = smc_clc_build_proposal(buf, sizeof(buf), &p);
	CHECK_EQ(smc_clc_parse_proposal(buf, len + 20, &q), 0);
}

static void test_proposal_bad_eyecatcher(void)
{
	u8 buf[SMC_CLC_PROPOSAL_MAX_LEN];
	struct smc_clc_proposal p, q;
	int len;

	example_proposal(&p);
	len = smc_clc_build_proposal(buf, sizeof(buf), &p);
	buf[len - 1] = 0xC4;	/* "SMCD" trailer is fine */
	CHECK_EQ(smc_clc_parse_proposal(buf, len, &q), 0);
	buf[3] = 0xC4;		/* "SMCD" header too */
	CHECK_EQ(smc_clc_parse_proposal(buf, len, &q), 0);
	buf[len - 1] = 0x00;
	CHECK_EQ(smc_clc_parse_proposal(buf, len, &q), -EPROTO);
	buf[len - 1] = 0xD9;
	buf[0] = 'S';
	CHECK_EQ(smc_clc_parse_proposal(buf, len, &q), -EPROTO);
	buf[0] = 0xE2;
	buf[4] = SMC_CLC_ACCEPT;	/* wrong type for this parser */
	CHECK_EQ(smc_clc_parse_proposal(buf, len, &q), -EPROTO);
	buf[4] = SMC_CLC_PROPOSAL;
	buf[7] = 0x06;			/* version 0 */
	CHECK_EQ(smc_clc_parse_proposal(buf, len, &q), -EPROTO);
	buf[7] = 0x26;
	CHECK_EQ(smc_clc_parse_proposal(buf, len, &q), 0);
}

static void test_proposal_bad_counts(void)
{
	u8 buf[SMC_CLC_PROPOSAL_MAX_LEN], save;
	struct smc_clc_proposal p, q;
	int len;

	full_proposal(&p, 8, 8, 8);
	len = smc_clc_build_proposal(buf, sizeof(buf), &p);
	CHECK_EQ(smc_clc_parse_proposal(buf, len, &q), 0);
	/* IPv6 count 9 */
	buf[87] = 9;
	CHECK_EQ(smc_clc_parse_proposal(buf, len, &q), -EPROTO);
	buf[87] = 7;	/* smaller count: length mismatch */
	CHECK_EQ(smc_clc_parse_proposal(buf, len, &q), -EPROTO);
	buf[87] = 8;
	/* EID count 9 (E at 80 + 8 + 136 = 224) */
	save = buf[224];
	buf[224] = 9;
	CHECK_EQ(smc_clc_parse_proposal(buf, len, &q), -EPROTO);
	buf[224] = save;
	buf[225] = 9;		/* GID entry count 9 */
	CHECK_EQ(smc_clc_parse_proposal(buf, len, &q), -EPROTO);
	buf[225] = 8;
	CHECK_EQ(smc_clc_parse_proposal(buf, len, &q), 0);

	/* builder refuses impossible counts */
	p.ipv6_cnt = 9;
	CHECK_EQ(smc_clc_build_proposal(buf, sizeof(buf), &p), -EINVAL);
	full_proposal(&p, 8, 8, 8);
	p.eid_cnt = 9;
	CHECK_EQ(smc_clc_build_proposal(buf, sizeof(buf), &p), -EINVAL);
	full_proposal(&p, 8, 8, 8);
	p.gid_cnt = 9;
	CHECK_EQ(smc_clc_build_proposal(buf, sizeof(buf), &p), -EINVAL);
	full_proposal(&p, 8, 8, 8);
	CHECK_EQ(smc_clc_build_proposal(buf, 651, &p), -ENOSPC);
	p.version = 0;
	CHECK_EQ(smc_clc_build_proposal(buf, sizeof(buf), &p), -EINVAL);
}

static void test_proposal_bad_offsets(void)
{
	u8 buf[SMC_CLC_PROPOSAL_MAX_LEN];
	struct smc_clc_proposal p, q;
	int len;

	full_proposal(&p, 1, 1, 1);
	len = smc_clc_build_proposal(buf, sizeof(buf), &p);
	/* IP-area offset > 40 */
	smc_put_be16(buf + 38, 41);
	CHECK_EQ(smc_clc_parse_proposal(buf, len, &q), -EPROTO);
	/* offset 0 with D in v1: SMC-D area absent, so no v2 extension */
	smc_put_be16(buf + 38, 0);
	CHECK_EQ(smc_clc_parse_proposal(buf, len, &q), -EPROTO);
	smc_put_be16(buf + 38, 40);
	/* v2-extension offset 0 or > 172 */
	smc_put_be16(buf + 50, 0);
	CHECK_EQ(smc_clc_parse_proposal(buf, len, &q), -EPROTO);
	smc_put_be16(buf + 50, 173);
	CHECK_EQ(smc_clc_parse_proposal(buf, len, &q), -EPROTO);
	smc_put_be16(buf + 50, 28 + 8 + 17);
	CHECK_EQ(smc_clc_parse_proposal(buf, len, &q), 0);
	/* SMC-Dv2 offset 0 or > 288: extension missing, not malformed */
	smc_put_be16(buf + 105 + 6, 0);
	CHECK_EQ(smc_clc_parse_proposal(buf, len, &q), 0);
	CHECK(!q.smcd_v2_ext && q.v2_ext);
	smc_put_be16(buf + 105 + 6, 289);
	CHECK_EQ(smc_clc_parse_proposal(buf, len, &q), 0);
	CHECK(!q.smcd_v2_ext);
	/* in range but pointing past the end of the message */
	smc_put_be16(buf + 105 + 6, 288);
	CHECK_EQ(smc_clc_parse_proposal(buf, len, &q), -EPROTO);
	smc_put_be16(buf + 105 + 6, 64);
	CHECK_EQ(smc_clc_parse_proposal(buf, len, &q), 0);
	CHECK(q.smcd_v2_ext);
	smc_put_be16(buf + 50, 172);
	CHECK_EQ(smc_clc_parse_proposal(buf, len, &q), -EPROTO);
}

static void test_proposal_ipv6_quirk(void)
{
	u8 buf[SMC_CLC_PROPOSAL_MAX_LEN];
	struct smc_clc_proposal p, q;
	int len;

	/* v1 = none: offset 0, the count is read from byte 47 */
	example_proposal(&p);
	p.ism_gid = 0x09;	/* lowest GID byte lands on byte 47 */
	CHECK_EQ(smc_clc_build_proposal(buf, sizeof(buf), &p), -EINVAL);
	p.ism_gid = 0x08;
	len = smc_clc_build_proposal(buf, sizeof(buf), &p);
	CHECK_EQ(smc_clc_parse_proposal(buf, len, &q), 0);
	CHECK_EQ(q.ipv6_cnt, 0);
	CHECK_EQ(q.ism_gid, 8);
	buf[47] = 9;
	CHECK_EQ(smc_clc_parse_proposal(buf, len, &q), -EPROTO);
	/*
	 * Offset 40 and v1 = none: byte 87 is the low byte of the SMC-Dv2
	 * offset (64), read as IPv6 count, so the Proposal is rejected.
	 */
	p.ism_gid = 0;
	len = smc_clc_build_proposal(buf, sizeof(buf), &p);
	smc_put_be16(buf + 38, 40);
	CHECK_EQ(smc_clc_parse_proposal(buf, len, &q), -EPROTO);
	/* without D in v2 that byte is 0 and the offset is harmless */
	p.typev2 = SMC_TYPE_R;
	len = smc_clc_build_proposal(buf, sizeof(buf), &p);
	smc_put_be16(buf + 38, 40);
	CHECK_EQ(smc_clc_parse_proposal(buf, len, &q), 0);
	buf[87] = 9;
	CHECK_EQ(smc_clc_parse_proposal(buf, len, &q), -EPROTO);
	/* version 1 with v1 = none is invalid */
	memset(&p, 0, sizeof(p));
	p.version = 1;
	p.typev1 = SMC_TYPE_R;
	len = smc_clc_build_proposal(buf, sizeof(buf), &p);
	CHECK_EQ(smc_clc_parse_proposal(buf, len, &q), 0);
	buf[7] = 0x10 | SMC_TYPE_N;
	CHECK_EQ(smc_clc_parse_proposal(buf, len, &q), -EPROTO);
	/* version 1, IP area right after area A (old SMC-R peer) */
	memset(buf, 0, sizeof(buf));
	smc_put_be32(buf, SMC_CLC_EYECATCHER_R);
	buf[4] = 1;
	smc_put_be16(buf + 5, 40 + 8 + 4);
	buf[7] = 0x10 | SMC_TYPE_R;
	smc_put_be32(buf + 40, 0x0A000000);
	buf[44] = 8;
	smc_put_be32(buf + 48, SMC_CLC_EYECATCHER_R);
	CHECK_EQ(smc_clc_parse_proposal(buf, 52, &q), 0);
	CHECK_EQ(q.ipv4_subnet, 0x0A000000);
	CHECK_EQ(q.ipv4_prefix_len, 8);
	CHECK(!q.smcd_area);
	check_truncations(parse_prop, buf, 52, &q);
}

static void test_prop_ism_iter(void)
{
	struct smc_clc_proposal p;
	struct smc_clc_ism_dev d;
	unsigned int pos = 0;

	memset(&p, 0, sizeof(p));
	p.smcd_area = true;
	p.ism_gid = 77;
	p.ism_chid = 0x0101;
	p.smcd_v2_ext = true;
	p.gid_cnt = 6;
	p.gidchid[0] = (struct smc_clc_gid_chid){ 1, 0xFFFF };
	p.gidchid[1] = (struct smc_clc_gid_chid){ 2, 0xFFFF };
	p.gidchid[2] = (struct smc_clc_gid_chid){ 3, 0xFF10 };	/* lone */
	p.gidchid[3] = (struct smc_clc_gid_chid){ 4, 0x0202 };
	p.gidchid[4] = (struct smc_clc_gid_chid){ 5, 0xFF00 };
	p.gidchid[5] = (struct smc_clc_gid_chid){ 6, 0xFF01 };	/* lone */

	CHECK(smc_clc_prop_next_ism(&p, &pos, &d));
	CHECK(d.native && d.gid == 77 && d.chid == 0x0101);
	CHECK(smc_clc_prop_next_ism(&p, &pos, &d));
	CHECK(!d.native && d.gid == 1 && d.gid_ext == 2 && d.chid == 0xFFFF);
	CHECK(smc_clc_prop_next_ism(&p, &pos, &d));
	CHECK(d.gid == 4 && d.gid_ext == 0 && d.chid == 0x0202);
	CHECK(!smc_clc_prop_next_ism(&p, &pos, &d));
	CHECK(!smc_clc_prop_next_ism(&p, &pos, &d));

	/* no native device, no SMC-Dv2 extension */
	p.ism_chid = 0;
	p.smcd_v2_ext = false;
	pos = 0;
	CHECK(!smc_clc_prop_next_ism(&p, &pos, &d));

	CHECK(smc_ism_chid_emulated(0xFF00));
	CHECK(smc_ism_chid_emulated(0xFFFF));
	CHECK(!smc_ism_chid_emulated(0xFEFF));
}

static void test_prop_add_ism(void)
{
	struct smc_clc_proposal p;
	int i;

	memset(&p, 0, sizeof(p));
	for (i = 0; i < 7; i++)
		CHECK_EQ(smc_clc_prop_add_ism(&p, i, 0, 0x100 + i), 0);
	/* an emulated device needs two slots, only one is left */
	CHECK_EQ(smc_clc_prop_add_ism(&p, 9, 10, 0xFFFF), -ENOSPC);
	CHECK_EQ(p.gid_cnt, 7);
	CHECK_EQ(smc_clc_prop_add_ism(&p, 9, 0, 0x200), 0);
	CHECK_EQ(smc_clc_prop_add_ism(&p, 9, 0, 0x201), -ENOSPC);
	memset(&p, 0, sizeof(p));
	CHECK_EQ(smc_clc_prop_add_ism(&p, 9, 10, 0xFFFF), 0);
	CHECK(p.gid_cnt == 2 && p.gidchid[1].gid == 10 &&
	      p.gidchid[1].chid == 0xFFFF);
}

/* ---------- Accept / Confirm ---------- */

static void acc_d(struct smc_clc_accept *a, u8 type, u8 ver, bool fc,
		  u8 rel)
{
	memset(a, 0, sizeof(*a));
	a->type = type;
	a->version = ver;
	a->path = SMC_TYPE_D;
	a->first_contact = fc;
	a->d.gid = 0x0102030405060708ULL;
	a->d.token = 0x1112131415161718ULL;
	a->d.dmbe_size = 2;
	memcpy(a->d.lgr_id, "\x00\x01\x00\x00", 4);
	if (ver == SMC_V1)
		return;
	a->d.chid = 0xFFFF;
	eid_set(a->eid, "SMC-EID.1");
	a->d.gid_ext = 0x2122232425262728ULL;
	if (!fc)
		return;
	a->fce.os_type = SMC_CLC_OS_LINUX;
	a->fce.release = rel;
	memset(a->fce.hostname, ' ', 32);
	memcpy(a->fce.hostname, "host-a", 6);
	if (rel)
		a->fce.feature_mask = SMC_CLC_FEAT_EMULATED_ISM;
}

static void acc_r(struct smc_clc_accept *a, u8 type, u8 ver, bool fc,
		  u8 ngid)
{
	memset(a, 0, sizeof(*a));
	a->type = type;
	a->version = ver;
	a->path = SMC_TYPE_R;
	a->first_contact = fc;
	fill(a->r.peer_id, 8, 30);
	fill(a->r.gid, 16, 31);
	fill(a->r.mac, 6, 32);
	a->r.qpn = 0xABCDEF;
	a->r.rkey = 0xDEADBEEF;
	a->r.rmbe_idx = 1;
	a->r.alert_token = 0x01020304;
	a->r.rmbe_size = 15;
	a->r.qp_mtu = 5;
	a->r.rmb_dma_addr = 0xFFFF888812345000ULL;
	a->r.psn = 0x123456;
	if (ver == SMC_V1)
		return;
	eid_set(a->eid, "SMCR-EID");
	if (!fc)
		return;
	a->fce.v2_direct = true;
	a->fce.os_type = SMC_CLC_OS_LINUX;
	a->fce.release = 1;
	memset(a->fce.hostname, ' ', 32);
	memcpy(a->fce.hostname, "host-b", 6);
	a->fce.max_conns = 255;
	a->fce.max_links = 2;
	a->fce.feature_mask = 1;
	a->fc_gid_cnt = ngid;
	if (ngid > 0)
		fill(a->fc_gids[0], 16, 40);
	if (ngid > 1)
		fill(a->fc_gids[1], 16, 41);
}

static void roundtrip_accept(const struct smc_clc_accept *a, int explen)
{
	u8 buf[256], *copy;
	struct smc_clc_accept q;
	int len;

	CHECK_EQ(smc_clc_accept_len(a), explen);
	len = smc_clc_build_accept(buf, sizeof(buf), a);
	CHECK_EQ(len, explen);
	if (len < 0)
		return;
	CHECK_EQ(smc_get_be16(buf + 5), len);
	CHECK_EQ(smc_get_be32(buf), a->path == SMC_TYPE_D ?
		 SMC_CLC_EYECATCHER_D : SMC_CLC_EYECATCHER_R);
	CHECK_EQ(smc_get_be32(buf + len - 4), smc_get_be32(buf));
	CHECK_EQ(buf[7], a->version << 4 | (a->first_contact ? 8 : 0) |
		 a->path);
	copy = malloc(len);
	memcpy(copy, buf, len);
	CHECK_EQ(smc_clc_parse_accept(copy, len, &q), 0);
	CHECK(!memcmp(a, &q, sizeof(q)));
	/* from a full receive buffer on, the rest is drained unchecked */
	check_truncations_max(parse_acc, copy, len, &q,
			      SMC_CLC_ACCEPT_RCV_LEN);
	free(copy);
	CHECK_EQ(smc_clc_build_accept(buf, len - 1, a), -ENOSPC);
	corpus_add("accept", buf, len);
}

static void test_accept_d_lengths(void)
{
	struct smc_clc_accept a;
	int t;

	for (t = SMC_CLC_ACCEPT; t <= SMC_CLC_CONFIRM; t++) {
		acc_d(&a, t, 1, false, 0);
		roundtrip_accept(&a, 48);
		acc_d(&a, t, 1, true, 0);
		roundtrip_accept(&a, 48);
		acc_d(&a, t, 2, false, 0);
		roundtrip_accept(&a, 78);
		acc_d(&a, t, 2, true, 0);
		roundtrip_accept(&a, 114);
		acc_d(&a, t, 2, true, 1);
		roundtrip_accept(&a, 130);
	}
}

static void test_accept_r_lengths(void)
{
	struct smc_clc_accept a;
	int t;

	for (t = SMC_CLC_ACCEPT; t <= SMC_CLC_CONFIRM; t++) {
		acc_r(&a, t, 1, false, 0);
		roundtrip_accept(&a, 68);
		acc_r(&a, t, 1, true, 0);
		roundtrip_accept(&a, 68);
		acc_r(&a, t, 2, false, 0);
		roundtrip_accept(&a, 108);
		acc_r(&a, t, 2, true, 0);
		roundtrip_accept(&a, 160);
	}
	acc_r(&a, SMC_CLC_CONFIRM, 2, true, 1);
	roundtrip_accept(&a, 180);
	acc_r(&a, SMC_CLC_CONFIRM, 2, true, 2);
	roundtrip_accept(&a, 196);
	/* an Accept never carries the GID list */
	acc_r(&a, SMC_CLC_ACCEPT, 2, true, 2);
	CHECK_EQ(smc_clc_accept_len(&a), 160);
}

static void test_accept_layout(void)
{
	struct smc_clc_accept a;
	u8 buf[256];

	acc_d(&a, SMC_CLC_ACCEPT, 2, true, 1);
	CHECK_EQ(smc_clc_build_accept(buf, sizeof(buf), &a), 130);
	CHECK(!memcmp(buf, "\xE2\xD4\xC3\xC4\x02\x00\x82\x29", 8));
	CHECK(!memcmp(buf + 8, "\x01\x02\x03\x04\x05\x06\x07\x08", 8));
	CHECK(!memcmp(buf + 16, "\x11\x12\x13\x14\x15\x16\x17\x18", 8));
	CHECK_EQ(buf[24], 0);
	CHECK_EQ(buf[25], 0x20);
	CHECK(!memcmp(buf + 28, "\x00\x01\x00\x00\xFF\xFF", 6));
	CHECK(!memcmp(buf + 34, "SMC-EID.1 ", 10));
	CHECK(!memcmp(buf + 66, "\x21\x22\x23\x24\x25\x26\x27\x28", 8));
	CHECK_EQ(buf[74], 0);
	CHECK_EQ(buf[75], 0x21);
	CHECK(!memcmp(buf + 78, "host-a  ", 8));
	CHECK_EQ(smc_get_be16(buf + 74 + 38), 1);

	acc_r(&a, SMC_CLC_CONFIRM, 2, true, 2);
	CHECK_EQ(smc_clc_build_accept(buf, sizeof(buf), &a), 196);
	CHECK(!memcmp(buf, "\xE2\xD4\xC3\xD9\x03\x00\xC4\x28", 8));
	CHECK(!memcmp(buf + 38, "\xAB\xCD\xEF\xDE\xAD\xBE\xEF\x01", 8));
	CHECK(!memcmp(buf + 46, "\x01\x02\x03\x04\xF5\x00", 6));
	CHECK(!memcmp(buf + 52, "\xFF\xFF\x88\x88\x12\x34\x50\x00", 8));
	CHECK(!memcmp(buf + 60, "\x00\x12\x34\x56", 4));
	CHECK(!memcmp(buf + 64, "SMCR-EID ", 9));
	CHECK_EQ(buf[104], 0x80);
	CHECK_EQ(buf[105], 0x21);
	CHECK_EQ(buf[140], 255);
	CHECK_EQ(buf[141], 2);
	CHECK_EQ(smc_get_be16(buf + 142), 1);
	CHECK_EQ(buf[156], 2);
	CHECK_EQ(buf[160], 40);
	CHECK_EQ(buf[176], 41);
}

static void test_accept_bad(void)
{
	struct smc_clc_accept a, q;
	u8 buf[256];
	int len;

	/* v1 lengths must be exact */
	acc_d(&a, SMC_CLC_ACCEPT, 1, false, 0);
	len = smc_clc_build_accept(buf, sizeof(buf), &a);
	smc_put_be16(buf + 5, 52);
	smc_put_be32(buf + 48, SMC_CLC_EYECATCHER_D);
	CHECK_EQ(smc_clc_parse_accept(buf, 52, &q), -EPROTO);
	acc_r(&a, SMC_CLC_ACCEPT, 1, false, 0);
	len = smc_clc_build_accept(buf, sizeof(buf), &a);
	smc_put_be16(buf + 5, 72);
	smc_put_be32(buf + 68, SMC_CLC_EYECATCHER_R);
	CHECK_EQ(smc_clc_parse_accept(buf, 72, &q), -EPROTO);
	/* SMC-R v1 layout labelled SMC-D: length 68 is not 48 */
	len = smc_clc_build_accept(buf, sizeof(buf), &a);
	buf[7] |= SMC_TYPE_D;
	CHECK_EQ(smc_clc_parse_accept(buf, len, &q), -EPROTO);
	/* v2 minimum lengths */
	acc_d(&a, SMC_CLC_CONFIRM, 2, false, 0);
	len = smc_clc_build_accept(buf, sizeof(buf), &a);
	smc_put_be16(buf + 5, 74);
	smc_put_be32(buf + 70, SMC_CLC_EYECATCHER_D);
	CHECK_EQ(smc_clc_parse_accept(buf, 74, &q), -EPROTO);
	acc_r(&a, SMC_CLC_CONFIRM, 2, false, 0);
	len = smc_clc_build_accept(buf, sizeof(buf), &a);
	smc_put_be16(buf + 5, 104);
	smc_put_be32(buf + 100, SMC_CLC_EYECATCHER_R);
	CHECK_EQ(smc_clc_parse_accept(buf, 104, &q), -EPROTO);
	/* longer v2 messages are fine (6.12) */
	len = smc_clc_build_accept(buf, sizeof(buf), &a);
	smc_put_be16(buf + 5, 120);
	smc_put_be32(buf + 116, SMC_CLC_EYECATCHER_R);
	CHECK_EQ(smc_clc_parse_accept(buf, 120, &q), 0);
	/* first contact claimed but no room for the extension */
	len = smc_clc_build_accept(buf, sizeof(buf), &a);
	buf[7] |= SMC_CLC_FIRST_CONTACT;
	CHECK_EQ(smc_clc_parse_accept(buf, len, &q), -EPROTO);
	/* release 1 needs the 52-byte SMC-D extension */
	acc_d(&a, SMC_CLC_ACCEPT, 2, true, 0);
	len = smc_clc_build_accept(buf, sizeof(buf), &a);
	CHECK_EQ(smc_clc_parse_accept(buf, len, &q), 0);
	buf[75] = 0x21;
	CHECK_EQ(smc_clc_parse_accept(buf, len, &q), -EPROTO);
	/* path bits 2 and 3 */
	acc_d(&a, SMC_CLC_ACCEPT, 2, false, 0);
	len = smc_clc_build_accept(buf, sizeof(buf), &a);
	buf[7] = 0x22;
	CHECK_EQ(smc_clc_parse_accept(buf, len, &q), -EPROTO);
	buf[7] = 0x23;
	CHECK_EQ(smc_clc_parse_accept(buf, len, &q), -EPROTO);
	buf[7] = 0x01;	/* version 0 */
	CHECK_EQ(smc_clc_parse_accept(buf, len, &q), -EPROTO);
	buf[7] = 0x21;
	CHECK_EQ(smc_clc_parse_accept(buf, len, &q), 0);
	/* eyecatchers: either value, anything else fails */
	buf[3] = 0xD9;
	buf[len - 1] = 0xD9;
	CHECK_EQ(smc_clc_parse_accept(buf, len, &q), 0);
	buf[len - 2] = 0;
	CHECK_EQ(smc_clc_parse_accept(buf, len, &q), -EPROTO);
	buf[len - 2] = 0xC3;
	buf[1] = 0;
	CHECK_EQ(smc_clc_parse_accept(buf, len, &q), -EPROTO);
	buf[1] = 0xD4;
	/* Proposal and Decline types are not for this parser */
	buf[4] = SMC_CLC_PROPOSAL;
	CHECK_EQ(smc_clc_parse_accept(buf, len, &q), -EPROTO);
	buf[4] = SMC_CLC_DECLINE;
	CHECK_EQ(smc_clc_parse_accept(buf, len, &q), -EPROTO);
	/* builder checks */
	acc_r(&a, SMC_CLC_ACCEPT, 2, false, 0);
	a.r.qpn = 0x1000000;
	CHECK_EQ(smc_clc_build_accept(buf, sizeof(buf), &a), -EINVAL);
	acc_r(&a, SMC_CLC_DECLINE, 2, false, 0);
	CHECK_EQ(smc_clc_build_accept(buf, sizeof(buf), &a), -EINVAL);
	acc_r(&a, SMC_CLC_ACCEPT, 2, false, 0);
	a.path = SMC_TYPE_B;
	CHECK_EQ(smc_clc_build_accept(buf, sizeof(buf), &a), -EINVAL);
}

static void test_accept_oversized(void)
{
	struct smc_clc_accept a, q;
	u8 buf[SMC_CLC_ACCEPT_RCV_LEN];

	/* a message longer than a full receive buffer: trailer unchecked */
	acc_d(&a, SMC_CLC_ACCEPT, 2, true, 1);
	smc_clc_build_accept(buf, sizeof(buf), &a);
	smc_put_be16(buf + 5, 1000);
	memset(buf + 126, 0x55, sizeof(buf) - 126);
	CHECK_EQ(smc_clc_parse_accept(buf, sizeof(buf), &q), 0);
	CHECK(q.fce.release == 1 && q.d.token == a.d.token);
	/* the same with fewer bytes than the receive buffer: truncated */
	CHECK_EQ(smc_clc_parse_accept(buf, sizeof(buf) - 1, &q), -EPROTO);
	/* SMC-R first-contact Accept, exactly 160 bytes */
	acc_r(&a, SMC_CLC_ACCEPT, 2, true, 0);
	CHECK_EQ(smc_clc_build_accept(buf, sizeof(buf), &a), 160);
	smc_put_be16(buf + 5, 0xFFFF);
	CHECK_EQ(smc_clc_parse_accept(buf, sizeof(buf), &q), 0);
	CHECK_EQ(q.fce.max_conns, 255);
	/* v1 lengths stay exact even then */
	buf[7] = 0x10;
	CHECK_EQ(smc_clc_parse_accept(buf, sizeof(buf), &q), -EPROTO);
}

/* ---------- Decline ---------- */

static void test_decline(void)
{
	struct smc_clc_decline d, q;
	u8 buf[64];
	int len;

	memset(&d, 0, sizeof(d));
	d.version = 1;
	fill(d.peer_id, 8, 50);
	d.peer_diagnosis = SMC_CLC_DECL_NOSMCDEV;
	len = smc_clc_build_decline(buf, sizeof(buf), &d);
	CHECK_EQ(len, 28);
	CHECK(!memcmp(buf, "\xE2\xD4\xC3\xD9\x04\x00\x1C\x10", 8));
	CHECK(!memcmp(buf + 16, "\x03\x03\x00\x00\x00", 5));
	CHECK(!memcmp(buf + 24, "\xE2\xD4\xC3\xD9", 4));
	CHECK_EQ(smc_clc_parse_decline(buf, len, &q), 0);
	CHECK(!memcmp(&d, &q, sizeof(q)));
	corpus_add("decline", buf, len);
	check_truncations(parse_decl, buf, len, &q);

	d.version = 2;
	d.peer_diagnosis = SMC_CLC_DECL_SYNCERR;
	d.out_of_sync = true;
	d.os_type = SMC_CLC_OS_LINUX;
	d.diag2[2] = 0x01020304;
	len = smc_clc_build_decline(buf, sizeof(buf), &d);
	CHECK_EQ(len, 44);
	CHECK(!memcmp(buf, "\xE2\xD4\xC3\xD9\x04\x00\x2C\x28", 8));
	CHECK_EQ(buf[20], 0x20);
	CHECK(!memcmp(buf + 32, "\x01\x02\x03\x04", 4));
	CHECK(!memcmp(buf + 40, "\xE2\xD4\xC3\xD9", 4));
	CHECK_EQ(smc_clc_parse_decline(buf, len, &q), 0);
	CHECK(!memcmp(&d, &q, sizeof(q)));
	corpus_add("decline", buf, len);
	check_truncations(parse_decl, buf, len, &q);

	/* the out-of-sync bit goes only with SYNCERR */
	d.peer_diagnosis = SMC_CLC_DECL_MEM;
	len = smc_clc_build_decline(buf, sizeof(buf), &d);
	CHECK_EQ(buf[7], 0x20);
	CHECK_EQ(smc_clc_parse_decline(buf, len, &q), 0);
	CHECK(!q.out_of_sync);

	/* trailer is not checked */
	memset(buf + 40, 0, 4);
	CHECK_EQ(smc_clc_parse_decline(buf, len, &q), 0);
	/* v2 length on a v1 Decline and vice versa */
	buf[7] = 0x10;
	CHECK_EQ(smc_clc_parse_decline(buf, len, &q), -EPROTO);
	buf[7] = 0x20;
	smc_put_be16(buf + 5, 28);
	CHECK_EQ(smc_clc_parse_decline(buf, len, &q), -EPROTO);
	smc_put_be16(buf + 5, 45);
	CHECK_EQ(smc_clc_parse_decline(buf, 64, &q), -EPROTO);
	smc_put_be16(buf + 5, 44);
	buf[7] = 0x00;
	CHECK_EQ(smc_clc_parse_decline(buf, len, &q), -EPROTO);
	buf[7] = 0x20;
	buf[4] = SMC_CLC_ACCEPT;
	CHECK_EQ(smc_clc_parse_decline(buf, len, &q), -EPROTO);
	buf[4] = SMC_CLC_DECLINE;
	buf[0] = 0;
	CHECK_EQ(smc_clc_parse_decline(buf, len, &q), -EPROTO);
	d.version = 0;
	CHECK_EQ(smc_clc_build_decline(buf, sizeof(buf), &d), -EINVAL);
	d.version = 2;
	CHECK_EQ(smc_clc_build_decline(buf, 43, &d), -ENOSPC);
}

static void test_decline_codes(void)
{
	static const u32 codes[] = {
		SMC_CLC_DECL_MEM, SMC_CLC_DECL_TIMEOUT_CL,
		SMC_CLC_DECL_TIMEOUT_AL, SMC_CLC_DECL_CNFERR,
		SMC_CLC_DECL_PEERNOSMC, SMC_CLC_DECL_IPSEC,
		SMC_CLC_DECL_NOSMCDEV, SMC_CLC_DECL_NOSMCDDEV,
		SMC_CLC_DECL_NOSMCRDEV, SMC_CLC_DECL_NOISM2SUPP,
		SMC_CLC_DECL_NOV2EXT, SMC_CLC_DECL_NOV2DEXT,
		SMC_CLC_DECL_NOSEID, SMC_CLC_DECL_NOSMCD2DEV,
		SMC_CLC_DECL_NOUEID, SMC_CLC_DECL_RELEASEERR,
		SMC_CLC_DECL_MAXCONNERR, SMC_CLC_DECL_MAXLINKERR,
		SMC_CLC_DECL_MODEUNSUPP, SMC_CLC_DECL_RMBE_EC,
		SMC_CLC_DECL_OPTUNSUPP, SMC_CLC_DECL_DIFFPREFIX,
		SMC_CLC_DECL_GETVLANERR, SMC_CLC_DECL_ISMVLANERR,
		SMC_CLC_DECL_NOACTLINK, SMC_CLC_DECL_NOSRVLINK,
		SMC_CLC_DECL_VERSMISMAT, SMC_CLC_DECL_MAX_DMB,
		SMC_CLC_DECL_NOROUTE, SMC_CLC_DECL_NOINDIRECT,
		SMC_CLC_DECL_SYNCERR, SMC_CLC_DECL_PEERDECL,
		SMC_CLC_DECL_INTERR, SMC_CLC_DECL_ERR_RTOK,
		SMC_CLC_DECL_ERR_RDYLNK, SMC_CLC_DECL_ERR_REGBUF,
	};
	struct smc_clc_decline d, q;
	unsigned int i, j;
	u8 buf[44];

	CHECK_EQ(ARRAY_SIZE(codes), 36);
	for (i = 0; i < ARRAY_SIZE(codes); i++) {
		for (j = 0; j < i; j++)
			CHECK(codes[i] != codes[j]);
		memset(&d, 0, sizeof(d));
		d.version = 2;
		d.peer_diagnosis = codes[i];
		smc_clc_build_decline(buf, sizeof(buf), &d);
		CHECK_EQ(smc_clc_parse_decline(buf, sizeof(buf), &q), 0);
		CHECK_EQ(q.peer_diagnosis, codes[i]);
		CHECK_EQ(q.out_of_sync, codes[i] == SMC_CLC_DECL_SYNCERR);
	}
	CHECK_EQ(SMC_CLC_DECL_MAXLINKERR, 0x0303000b);
	CHECK_EQ(SMC_CLC_DECL_ERR_REGBUF, 0x09990003);
}

/* ---------- buffer sizes ---------- */

static void test_buf_compress(void)
{
	u8 c;

	CHECK_EQ(smc_buf_uncompress(0), 16384);
	CHECK_EQ(smc_buf_uncompress(6), 1048576);
	CHECK_EQ(smc_buf_uncompress(15), 536870912);
	CHECK_EQ(smc_buf_compress(0, 15), 0);
	CHECK_EQ(smc_buf_compress(1, 15), 0);
	CHECK_EQ(smc_buf_compress(16384, 15), 0);
	CHECK_EQ(smc_buf_compress(16385, 15), 1);
	CHECK_EQ(smc_buf_compress(32768, 15), 1);
	CHECK_EQ(smc_buf_compress(65536, 15), 2);
	CHECK_EQ(smc_buf_compress(65537, 15), 3);
	CHECK_EQ(smc_buf_compress(1048576, SMCD_BUF_MAX_COMP), 6);
	CHECK_EQ(smc_buf_compress(1048577, SMCD_BUF_MAX_COMP), 6);
	CHECK_EQ(smc_buf_compress(0xFFFFFFFF, SMCD_BUF_MAX_COMP), 6);
	CHECK_EQ(smc_buf_compress(536870912, SMCR_BUF_MAX_COMP), 15);
	CHECK_EQ(smc_buf_compress(536870913, SMCR_BUF_MAX_COMP), 15);
	CHECK_EQ(smc_buf_compress(0xFFFFFFFF, SMCR_BUF_MAX_COMP), 15);
	CHECK_EQ(smc_buf_compress(1 << 20, 5), 5);
	for (c = 0; c <= 15; c++) {
		CHECK_EQ(smc_buf_compress(smc_buf_uncompress(c), 15), c);
		CHECK_EQ(smc_buf_compress(smc_buf_uncompress(c) - 1, 15), c);
		if (c < 15)
			CHECK_EQ(smc_buf_compress(smc_buf_uncompress(c) + 1,
						  15), c + 1);
	}
}

/* ---------- cursors ---------- */

static void test_curs_add(void)
{
	struct smc_cursor c = { .wrap = 0, .count = 0 };

	smc_curs_add(100, &c, 99);
	CHECK(c.wrap == 0 && c.count == 99);
	smc_curs_add(100, &c, 1);
	CHECK(c.wrap == 1 && c.count == 0);
	smc_curs_add(100, &c, 100);
	CHECK(c.wrap == 2 && c.count == 0);
	smc_curs_add(100, &c, 0);
	CHECK(c.wrap == 2 && c.count == 0);
	c.count = 50;
	smc_curs_add(100, &c, 70);
	CHECK(c.wrap == 3 && c.count == 20);
	c.wrap = 0xFFFF;
	c.count = 90;
	smc_curs_add(100, &c, 10);
	CHECK(c.wrap == 0 && c.count == 0);
	/* large ring */
	c.wrap = 7;
	c.count = 536870911;
	smc_curs_add(536870912, &c, 536870912);
	CHECK(c.wrap == 8 && c.count == 536870911);
}

/* ---------- close state machine ---------- */

static void test_close_fsm_active_close(void)
{
	struct smc_close_fsm a = { .state = SMC_FSM_ACTIVE };
	struct smc_close_fsm b = { .state = SMC_FSM_ACTIVE };
	u8 sent;

	/* A closes first, B reads on and closes later */
	sent = smc_fsm_close(&a, false);
	CHECK_EQ(sent, SMC_CDC_CS_CLOSED);
	CHECK_EQ(a.state, SMC_FSM_PEERCLOSEWAIT1);
	smc_fsm_peer(&b, sent, false);
	CHECK_EQ(b.state, SMC_FSM_APPCLOSEWAIT1);
	sent = smc_fsm_close(&b, false);
	CHECK_EQ(sent, SMC_CDC_CS_CLOSED);
	CHECK_EQ(b.state, SMC_FSM_CLOSED);
	smc_fsm_peer(&a, sent, true);
	CHECK_EQ(a.state, SMC_FSM_CLOSED);
}

static void test_close_fsm_half_close(void)
{
	struct smc_close_fsm a = { .state = SMC_FSM_ACTIVE };
	struct smc_close_fsm b = { .state = SMC_FSM_ACTIVE };
	u8 sent;

	sent = smc_fsm_shut_wr(&a);
	CHECK_EQ(sent, SMC_CDC_CS_DONE_WRITING);
	CHECK_EQ(a.state, SMC_FSM_PEERCLOSEWAIT1);
	CHECK_EQ(smc_fsm_shut_wr(&a), 0);		/* once */
	smc_fsm_peer(&b, sent, false);
	CHECK_EQ(b.state, SMC_FSM_APPCLOSEWAIT1);
	sent = smc_fsm_shut_wr(&b);
	CHECK_EQ(b.state, SMC_FSM_APPCLOSEWAIT2);
	smc_fsm_peer(&a, sent, false);
	CHECK_EQ(a.state, SMC_FSM_PEERCLOSEWAIT2);
	/* a close after done-writing still sends closed */
	sent = smc_fsm_close(&a, false);
	CHECK_EQ(sent, SMC_CDC_CS_CLOSED);
	CHECK_EQ(a.state, SMC_FSM_PEERCLOSEWAIT2);
	smc_fsm_peer(&b, sent, false);
	CHECK_EQ(b.state, SMC_FSM_APPCLOSEWAIT2);
	sent = smc_fsm_close(&b, false);
	CHECK_EQ(b.state, SMC_FSM_CLOSED);
	smc_fsm_peer(&a, sent, false);
	CHECK_EQ(a.state, SMC_FSM_APPFINCLOSEWAIT);
	CHECK_EQ(smc_fsm_close(&a, false), 0);	/* closed was sent */
	CHECK_EQ(a.state, SMC_FSM_CLOSED);
}

static void test_close_fsm_abort(void)
{
	struct smc_close_fsm a = { .state = SMC_FSM_ACTIVE };
	struct smc_close_fsm b = { .state = SMC_FSM_ACTIVE };
	u8 sent;

	sent = smc_fsm_close(&a, true);
	CHECK_EQ(sent, SMC_CDC_CS_ABORT);
	smc_fsm_peer(&b, sent, false);
	CHECK_EQ(b.state, SMC_FSM_PROCESSABORT);
	CHECK_EQ(smc_fsm_close(&b, false), SMC_CDC_CS_ABORT);
	CHECK_EQ(b.state, SMC_FSM_CLOSED);
	/* abort after our done-writing only */
	a.state = SMC_FSM_ACTIVE;
	a.sent = 0;
	smc_fsm_shut_wr(&a);
	smc_fsm_peer(&a, SMC_CDC_CS_ABORT, false);
	CHECK_EQ(a.state, SMC_FSM_PROCESSABORT);
	/* unrelated flags move nothing */
	b.state = SMC_FSM_ACTIVE;
	smc_fsm_peer(&b, 0, false);
	CHECK_EQ(b.state, SMC_FSM_ACTIVE);
}

static void test_curs_prev_equal(void)
{
	struct smc_cursor c = { .wrap = 3, .count = 1 }, d = c;

	CHECK(smc_curs_equal(&c, &d));
	smc_curs_prev(100, &c);
	CHECK(c.wrap == 3 && c.count == 0);
	CHECK(!smc_curs_equal(&c, &d));
	smc_curs_prev(100, &c);
	CHECK(c.wrap == 2 && c.count == 99);
	smc_curs_add(100, &c, 2);
	CHECK(smc_curs_equal(&c, &d));
	/* the byte before the first wrap of the 16-bit counter */
	c.wrap = 0;
	c.count = 0;
	smc_curs_prev(100, &c);
	CHECK(c.wrap == 0xFFFF && c.count == 99);
	d.wrap = 0xFFFF;
	d.count = 99;
	CHECK(smc_curs_equal(&c, &d));
	d.wrap = 0;
	CHECK(!smc_curs_equal(&c, &d));
}

static void test_curs_diff(void)
{
	struct smc_cursor a = { 0, 10 }, b = { 0, 30 };

	CHECK_EQ(smc_curs_diff(100, &a, &b), 20);
	CHECK_EQ(smc_curs_diff(100, &b, &a), 0);	/* clamped */
	CHECK_EQ(smc_curs_diff(100, &a, &a), 0);
	b.wrap = 1;
	b.count = 5;
	CHECK_EQ(smc_curs_diff(100, &a, &b), 95);
	b.count = 10;
	CHECK_EQ(smc_curs_diff(100, &a, &b), 100);	/* full ring */
	a.wrap = 0xFFFF;
	a.count = 99;
	b.wrap = 0;
	b.count = 0;
	CHECK_EQ(smc_curs_diff(100, &a, &b), 1);	/* across 0xFFFF */
	/* inconsistent input (count beyond ring) clamps at 0 */
	a.wrap = 0;
	a.count = 500;
	b.wrap = 1;
	b.count = 0;
	CHECK_EQ(smc_curs_diff(100, &a, &b), 0);
}

static void test_curs_comp_stale(void)
{
	struct smc_cursor o = { 5, 50 }, n = { 5, 60 };

	CHECK_EQ(smc_curs_comp(100, &o, &n), 10);
	CHECK_EQ(smc_curs_comp(100, &n, &o), -10);
	n.wrap = 4;
	n.count = 90;
	CHECK_EQ(smc_curs_comp(100, &o, &n), -60);
	CHECK(smc_curs_stale(&o, &n));
	n.wrap = 5;
	n.count = 49;
	CHECK(smc_curs_stale(&o, &n));
	n.count = 50;
	CHECK(!smc_curs_stale(&o, &n));
	n.wrap = 6;
	n.count = 0;
	CHECK(!smc_curs_stale(&o, &n));
	n.wrap = 0;	/* back over the first wrap: stale */
	CHECK(smc_curs_stale(&o, &n));
	o.wrap = 65535;	/* the wrap counter wrapped: not stale */
	CHECK(!smc_curs_stale(&o, &n));
	n.wrap = 65535;
	n.count = 0;
	CHECK(smc_curs_stale(&o, &n));
	o.wrap = 0;	/* one wrap ahead of 65535: stale */
	o.count = 0;
	CHECK(smc_curs_stale(&o, &n));
	o.wrap = 0;
	o.count = 10;
	n.wrap = 0;
	n.count = 9;
	CHECK(smc_curs_stale(&o, &n));

	CHECK(!smc_cdc_seq_older(10, 10));
	CHECK(!smc_cdc_seq_older(10, 11));
	CHECK(smc_cdc_seq_older(10, 9));
	CHECK(!smc_cdc_seq_older(0xFFFF, 0));
	CHECK(smc_cdc_seq_older(0, 0xFFFF));
	CHECK(smc_cdc_seq_older(0x8000, 0));
}

static void test_curs_space(void)
{
	struct smc_cursor cons = { 3, 90 }, prod = { 4, 20 };

	CHECK_EQ(smc_curs_readable(100, &cons, &prod), 30);
	CHECK_EQ(smc_curs_free(100, &cons, &prod), 70);
	prod.count = 90;
	CHECK_EQ(smc_curs_free(100, &cons, &prod), 0);
	CHECK_EQ(smc_curs_readable(100, &cons, &prod), 100);
	prod.wrap = 3;
	CHECK_EQ(smc_curs_free(100, &cons, &prod), 100);
	CHECK_EQ(smc_curs_readable(100, &cons, &prod), 0);
}

/* ---------- CDC ---------- */

static void test_smcr_cdc(void)
{
	struct smcr_cdc_msg m = {
		.seqno = 0xBEEF, .token = 0x01020304,
		.prod = { 0x1122, 0x33445566 }, .cons = { 0xFFFF, 7 },
		.prod_flags = SMC_CDC_PF_WRITE_BLOCKED | SMC_CDC_PF_URG_PRESENT,
		.conn_state_flags = SMC_CDC_CS_CLOSED,
	}, q;
	static const u8 exp[44] = {
		0xFE, 44, 0xBE, 0xEF, 1, 2, 3, 4, 0, 0, 0x11, 0x22,
		0x33, 0x44, 0x55, 0x66, 0, 0, 0xFF, 0xFF, 0, 0, 0, 7,
		0xA0, 0x40,
	};
	u8 buf[48];

	memset(buf, 0xAA, sizeof(buf));
	CHECK_EQ(smcr_cdc_build(buf, sizeof(buf), &m), 44);
	CHECK(!memcmp(buf, exp, sizeof(exp)));
	CHECK_EQ(buf[44], 0xAA);
	m.type = SMC_CDC_MSG_TYPE;
	m.len = 44;
	CHECK_EQ(smcr_cdc_parse(buf, 44, &q), 0);
	CHECK(!memcmp(&m, &q, sizeof(q)));
	CHECK_EQ(smcr_cdc_parse(buf, 26, &q), 0);
	CHECK_EQ(smcr_cdc_parse(buf, 25, &q), -EPROTO);
	corpus_add("cdc", buf, 44);
	buf[1] = 48;
	CHECK_EQ(smcr_cdc_parse(buf, 44, &q), -EPROTO);
	buf[1] = 44;
	buf[0] = 0xFD;
	CHECK_EQ(smcr_cdc_parse(buf, 44, &q), -EPROTO);
	CHECK_EQ(smcr_cdc_build(buf, 43, &m), -ENOSPC);
}

static void test_smcd_cdc(void)
{
	struct smcd_cdc_hdr h = {
		.prod = { 0x1234, 0x89ABCDEF }, .cons = { 0xFFFF, 0xFFFFF },
		.prod_flags = SMC_CDC_PF_URG_PENDING,
		.conn_state_flags = SMC_CDC_CS_DONE_WRITING | SMC_CDC_CS_ABORT,
	}, q;
	u8 buf[32], exp[32];
	u64 half;

	memset(exp, 0, sizeof(exp));
	exp[0] = 0xFE;
	smc_put_host16(exp + 8, 0x1234);
	smc_put_host32(exp + 10, 0x89ABCDEF);
	smc_put_host16(exp + 16, 0xFFFF);
	smc_put_host32(exp + 18, 0xFFFFF);
	exp[22] = 0x40;
	exp[23] = 0xA0;
	CHECK_EQ(smcd_cdc_build(buf, sizeof(buf), &h), 32);
	CHECK(!memcmp(buf, exp, sizeof(exp)));
	h.type = SMC_CDC_MSG_TYPE;
	CHECK_EQ(smcd_cdc_parse(buf, 32, &q), 0);
	CHECK(!memcmp(&h, &q, sizeof(q)));
	CHECK_EQ(smcd_cdc_parse(buf, 31, &q), -EPROTO);
	corpus_add("cdc", buf, 32);

	/* the halves as aligned native u64 loads */
	memcpy(&half, buf + SMCD_CDC_PROD_OFF, 8);
	CHECK(half == smcd_cdc_pack_prod(&h));
	memcpy(&half, buf + SMCD_CDC_CONS_OFF, 8);
	CHECK(half == smcd_cdc_pack_cons(&h));
	memset(&q, 0, sizeof(q));
	smcd_cdc_unpack_cons(half, &q);
	CHECK(q.cons.wrap == 0xFFFF && q.cons.count == 0xFFFFF &&
	      q.prod_flags == 0x40 && q.conn_state_flags == 0xA0);
	/* flags in the producer half are ignored */
	buf[14] = 0xFF;
	buf[15] = 0xFF;
	CHECK_EQ(smcd_cdc_parse(buf, 32, &q), 0);
	CHECK(!memcmp(&h, &q, sizeof(q)));
	CHECK_EQ(smcd_cdc_build(buf, 31, &h), -ENOSPC);
}

static void test_cons_update_rule(void)
{
	u32 ring = 65536 - 32, lim = ring / 10;

	/* small ring: L = 2304 */
	CHECK(!smc_cdc_cons_update_needed(16384, 2304, 16384, false, false, true));
	CHECK(smc_cdc_cons_update_needed(16384, 2305, 16384, false, false, true));
	CHECK(smc_cdc_cons_update_needed(16384, 0, 0, false, true, true));
	/* peer still has more than half free: wait */
	CHECK(!smc_cdc_cons_update_needed(16384, 5000, 8191, false, false, true));
	CHECK(smc_cdc_cons_update_needed(16384, 5000, 8192, false, false, true));
	CHECK(smc_cdc_cons_update_needed(16384, 5000, 8191, true, false, true));
	/* ... unless all it sent is read, and past the limit */
	CHECK(smc_cdc_cons_update_needed(16384, 5000, 5000, false, false, true));
	CHECK(!smc_cdc_cons_update_needed(16384, 2304, 2304, false, false, true));
	CHECK(!smc_cdc_cons_update_needed(ring, lim, lim, false, false, true));
	CHECK(smc_cdc_cons_update_needed(ring, lim + 1, lim + 1, false, false, true));
	/* large ring: L = ring / 10 */
	CHECK(!smc_cdc_cons_update_needed(ring, lim, ring, false, false, true));
	CHECK(smc_cdc_cons_update_needed(ring, lim + 1, ring, false, false, true));
	CHECK(!smc_cdc_cons_update_needed(ring, lim + 1, 0, false, false, true));
	CHECK(smc_cdc_cons_update_needed(ring, lim + 1, 0, true, false, true));
	/* ... which an unpaged ring (an SMC-R RMB) never asks */
	CHECK(!smc_cdc_cons_update_needed(16384, 5000, 5000, false, false, false));
	CHECK(!smc_cdc_cons_update_needed(ring, lim + 1, lim + 1, false, false, false));
	CHECK(smc_cdc_cons_update_needed(16384, 5000, 8192, false, false, false));
	/* outstanding beyond the ring: no free space */
	CHECK(smc_cdc_cons_update_needed(ring, lim + 1, ~0U, false, false, true));
}

/* ---------- a ring folded onto its window ---------- */

static void test_fold_window(void)
{
	u32 len = 1048576 - 32;

	CHECK_EQ(smc_fold_window(len, 65536), 65536 - 32);
	CHECK_EQ(smc_fold_window(len, 16384), 16384 - 32);
	CHECK_EQ(smc_fold_window(len, 1048576), len);
	CHECK_EQ(smc_fold_window(3 * 4096, 4096), 4096);
	CHECK_EQ(smc_fold_window(3 * 4096 + 5, 4096), 5);
	/* runs end at a fold's end or the ring's */
	CHECK_EQ(smc_fold_run(len, 65536, 65000, 10000), 536);
	CHECK_EQ(smc_fold_run(len, 65536, len - 10, 100), 10);
	CHECK_EQ(smc_fold_run(len, 65536, 0, 100), 100);
	/* in flight within one lower half: the fold may double */
	CHECK(smc_fold_widen_ok(len, 65536, 131072 + 10, 60000));
	CHECK(smc_fold_widen_ok(len, 65536, 5, 0));
	CHECK(!smc_fold_widen_ok(len, 65536, 65536 + 10, 100));
	CHECK(!smc_fold_widen_ok(len, 65536, 65000, 1000));
	CHECK(!smc_fold_widen_ok(len, 65536, len - 10, 20));
	CHECK(!smc_fold_widen_ok(len, 65536, 0, 65536));
	CHECK(!smc_fold_widen_ok(len, 65536, len, 0));
	/* room up to the lower half's end, none kept in an upper half */
	CHECK_EQ(smc_fold_widen_room(65536, 131072 + 1000), 65536 - 1000);
	CHECK_EQ(smc_fold_widen_room(65536, 65536 + 1000), ~0U);
}

static u32 fold_rand(u32 *st)
{
	*st ^= *st << 13;
	*st ^= *st >> 17;
	*st ^= *st << 5;
	return *st;
}

/* Random scripts over several ring shapes; @naive breaks the rule */
static int fold_scripts(bool naive, unsigned int *max_widened)
{
	static const u32 lens[][2] = {
		{ 4096 - 32, 512 }, { 16384 - 32, 1024 }, { 8192, 1024 },
		{ 3 * 1024 + 100, 256 }, { 65536 - 32, 16384 },
	};
	u8 ops[4000];
	u32 st = 0x1234567, r, i, c;
	struct fold_sim s;
	int bad = 0;

	*max_widened = 0;
	for (c = 0; c < ARRAY_SIZE(lens); c++) {
		for (r = 0; r < 60; r++) {
			for (i = 0; i < sizeof(ops); i++) {
				ops[i] = (u8)fold_rand(&st);
				/* a reader that keeps up, now and then */
				if (r % 3 == 0 && (ops[i] & 3) == 2)
					ops[i] |= 0xfc;
			}
			if (!naive && r < 2)
				corpus_add("fold", ops, 600);
			if (fold_sim_init(&s, lens[c][0], lens[c][1]))
				return -1;
			s.naive = naive;
			if (fold_sim_run(&s, ops, sizeof(ops)))
				bad++;
			if (s.widened > *max_widened)
				*max_widened = s.widened;
			fold_sim_free(&s);
		}
	}
	return bad;
}

static void test_fold_sim(void)
{
	unsigned int widened;

	/* every byte lands and is read where it should, as it widens */
	CHECK_EQ(fold_scripts(false, &widened), 0);
	CHECK(widened >= 3);
	/* doubling the fold without the rule loses bytes: the model sees */
	CHECK(fold_scripts(true, &widened) > 0);
}

struct test {
	const char *name;
	void (*fn)(void);
};

/* ---------- framing a message out of a byte stream ---------- */

/* Feed @len stream bytes in pieces of @step; returns bytes consumed */
static u32 frame_feed(struct smc_clc_frame *f, const u8 *in, u32 len,
		      u32 step)
{
	u32 pos = 0;

	while (pos < len) {
		u32 piece = len - pos < step ? len - pos : step;
		u32 n = piece < smc_clc_frame_need(f) ?
			piece : smc_clc_frame_need(f);
		u32 room = smc_clc_frame_room(f, n);

		if (!n)
			break;
		memcpy(f->buf + f->got, in + pos, room);
		smc_clc_frame_advance(f, n);
		pos += n;
	}
	return pos;
}

static void test_clc_frame(void)
{
	struct smc_clc_decline d = { .version = 2, .os_type = 1,
				     .peer_diagnosis = SMC_CLC_DECL_MEM };
	u8 stream[128], out[64], small[SMC_CLC_HDR_LEN + 4];
	struct smc_clc_decline q;
	struct smc_clc_frame f;
	int len;
	u32 step, used;

	/* a Decline followed by application data (fallback) */
	len = smc_clc_build_decline(stream, sizeof(stream), &d);
	CHECK_EQ(len, 44);
	memset(stream + len, 0xab, sizeof(stream) - len);
	for (step = 1; step <= sizeof(stream); step++) {
		smc_clc_frame_init(&f, SMC_CLC_ACCEPT, out, sizeof(out));
		used = frame_feed(&f, stream, sizeof(stream), step);
		CHECK_EQ(used, len);	/* not one byte of the data */
		CHECK(smc_clc_frame_done(&f));
		CHECK_EQ(f.hdr.type, SMC_CLC_DECLINE);
		CHECK_EQ(smc_clc_parse_decline(out, len, &q), 0);
		CHECK_EQ(smc_clc_frame_need(&f), 0);
	}

	/* incomplete: the header, then part of the rest */
	smc_clc_frame_init(&f, SMC_CLC_ACCEPT, out, sizeof(out));
	CHECK_EQ(smc_clc_frame_need(&f), SMC_CLC_HDR_LEN);
	CHECK_EQ(frame_feed(&f, stream, 20, 3), 20);
	CHECK(!smc_clc_frame_done(&f));
	CHECK_EQ(smc_clc_frame_need(&f), len - 20);

	/* longer than the buffer: consumed in full, the tail not stored */
	smc_clc_frame_init(&f, SMC_CLC_DECLINE, small, sizeof(small));
	CHECK_EQ(frame_feed(&f, stream, sizeof(stream), 7), len);
	CHECK(smc_clc_frame_done(&f));
	CHECK_EQ(f.got, len);
	CHECK(!memcmp(small, stream, sizeof(small)));

	/* another type than the one expected is refused at the header */
	smc_clc_frame_init(&f, SMC_CLC_ACCEPT, out, sizeof(out));
	stream[4] = SMC_CLC_CONFIRM;
	CHECK_EQ(frame_feed(&f, stream, sizeof(stream), 5), SMC_CLC_HDR_LEN);
	CHECK_EQ(f.err, -EPROTO);
	CHECK(!smc_clc_frame_done(&f));
	CHECK_EQ(smc_clc_frame_need(&f), 0);
	stream[4] = SMC_CLC_DECLINE;

	/* garbage and a length below header plus trailer */
	smc_clc_frame_init(&f, SMC_CLC_ACCEPT, out, sizeof(out));
	stream[0] = 0;
	frame_feed(&f, stream, sizeof(stream), 64);
	CHECK_EQ(f.err, -EPROTO);
	stream[0] = 0xE2;
	smc_put_be16(stream + 5, SMC_CLC_HDR_LEN + SMC_CLC_TRL_LEN - 1);
	smc_clc_frame_init(&f, SMC_CLC_ACCEPT, out, sizeof(out));
	frame_feed(&f, stream, sizeof(stream), 64);
	CHECK_EQ(f.err, -EPROTO);
}

/*
 * The add-link budget of a group: a peer that asks for a link every
 * 10 ms (refusing each one it gets) for ten minutes gets 8 tries a
 * minute, no more; the budget works across the wrap of the tick count
 * and starts afresh after a quiet window.
 */
static void test_add_budget(void)
{
	const unsigned long hz = 1000, window = 60 * hz;
	unsigned int got, max_minute, in_minute, i;
	struct smcr_add_budget b = { 0 };
	unsigned long t, t0, start;
	unsigned long when[200];

	for (t0 = 0; t0 < 2; t0++) {
		/* the second round starts 5 s before the tick count wraps */
		start = t0 ? (unsigned long)-5000 : 12345;
		memset(&b, 0, sizeof(b));
		got = 0;
		for (t = 0; t < 600 * hz; t += 10)
			if (smcr_add_budget_take(&b, start + t, window, 8)) {
				CHECK(got < ARRAY_SIZE(when));
				if (got < ARRAY_SIZE(when))
					when[got] = t;
				got++;
			}
		/* ten windows of eight */
		CHECK_EQ(got, 80);
		/* in any 60 s, at most two windows' worth */
		max_minute = 0;
		for (i = 0; i < got && i < ARRAY_SIZE(when); i++) {
			unsigned int j;

			in_minute = 0;
			for (j = i; j < got && when[j] < when[i] + window; j++)
				in_minute++;
			if (in_minute > max_minute)
				max_minute = in_minute;
		}
		CHECK(max_minute <= 16);
	}
	/* refused at the bound, allowed again once the window is over */
	memset(&b, 0, sizeof(b));
	for (i = 0; i < 8; i++)
		CHECK(smcr_add_budget_take(&b, 100 + i, window, 8));
	CHECK(!smcr_add_budget_take(&b, 100 + window - 1, window, 8));
	CHECK(smcr_add_budget_take(&b, 100 + window, window, 8));
	CHECK_EQ(b.used, 1U);
	/* a budget of none allows nothing */
	memset(&b, 0, sizeof(b));
	CHECK(!smcr_add_budget_take(&b, 5, window, 0));
}

/* QPs of new links go to the least-used vector, the lowest among equals */
static void test_cq_pick(void)
{
	unsigned int bound[4] = { 0 }, one = 7, i, v, lo, hi;

	CHECK_EQ(smcr_cq_pick(&one, 1), 0);
	/* an empty set fills in vector order, then round after round */
	for (i = 0; i < 12; i++) {
		v = smcr_cq_pick(bound, 4);
		CHECK_EQ(v, i % 4);
		bound[v]++;
	}
	/* a vector whose links went away is refilled first */
	bound[2] -= 2;
	bound[1] -= 1;
	CHECK_EQ(smcr_cq_pick(bound, 4), 2);
	bound[2]++;
	/* 1 and 2 tie at two: the lower vector wins */
	CHECK_EQ(smcr_cq_pick(bound, 4), 1);
	bound[1]++;
	CHECK_EQ(smcr_cq_pick(bound, 4), 2);
	bound[2]++;
	/* with any history, binding keeps the spread at most one */
	bound[0] = 9;
	bound[3] = 0;
	for (i = 0; i < 40; i++)
		bound[smcr_cq_pick(bound, 4)]++;
	hi = bound[0];
	lo = hi;
	for (v = 1; v < 4; v++) {
		lo = bound[v] < lo ? bound[v] : lo;
		hi = bound[v] > hi ? bound[v] : hi;
	}
	CHECK(hi - lo <= 1);
	CHECK_EQ(bound[0] + bound[1] + bound[2] + bound[3], 9 + 3 + 3 + 40);
}

/* PNET IDs: stored trimmed and upper case, compared up to a blank */
static void test_pnetid(void)
{
	char out[SMC_PNETID_LEN + 1];

	CHECK_EQ(smc_pnetid_normalize("net1", out), 0);
	CHECK(!strcmp(out, "NET1"));
	CHECK_EQ(smc_pnetid_normalize(" \t Ab9z\x20\n", out), 0);
	CHECK(!strcmp(out, "AB9Z"));
	CHECK_EQ(smc_pnetid_normalize("0123456789abcdef", out), 0);
	CHECK(!strcmp(out, "0123456789ABCDEF"));
	CHECK_EQ(smc_pnetid_normalize("0123456789abcdefg", out), -EINVAL);
	CHECK_EQ(smc_pnetid_normalize("", out), -EINVAL);
	CHECK_EQ(smc_pnetid_normalize("   ", out), -EINVAL);
	CHECK_EQ(smc_pnetid_normalize("a b", out), -EINVAL);
	CHECK_EQ(smc_pnetid_normalize("net-1", out), -EINVAL);
	CHECK_EQ(smc_pnetid_normalize("n\xc3\xa9t", out), -EINVAL);

	CHECK(smc_pnetid_match("NET1", "NET1"));
	CHECK(smc_pnetid_match("NET1", "NET1 "));
	CHECK(smc_pnetid_match("NET1            ", "NET1"));
	CHECK(!smc_pnetid_match("NET1", "net1"));
	CHECK(!smc_pnetid_match("NET1", "NET12"));
	CHECK(!smc_pnetid_match("NET12", "NET1"));
	CHECK(!smc_pnetid_match("", "NET1"));
	CHECK(smc_pnetid_match("", ""));
	/* only the first 16 bytes count */
	CHECK(smc_pnetid_match("0123456789ABCDEF", "0123456789ABCDEFX"));

	/* a port takes a PNET ID unless it has another */
	out[0] = 0;
	CHECK_EQ(smc_pnetid_set(out, "NET1"), 0);
	CHECK(!strcmp(out, "NET1"));
	CHECK_EQ(smc_pnetid_set(out, "NET1"), 0);
	CHECK_EQ(smc_pnetid_set(out, "NET2"), -EEXIST);
	CHECK(!strcmp(out, "NET1"));
	smc_pnetid_clear(out, "NET2");
	CHECK(!strcmp(out, "NET1"));
	smc_pnetid_clear(out, "NET1");
	CHECK_EQ(out[0], 0);
	CHECK_EQ(smc_pnetid_set(out, "0123456789ABCDEF"), 0);
	CHECK_EQ(strlen(out), SMC_PNETID_LEN);
	smc_pnetid_clear(out, NULL);
	CHECK_EQ(out[0], 0);

	/* a device entry names the device or its parent */
	CHECK(smc_pnetid_dev_named("rxe0", "rxe0", NULL));
	CHECK(smc_pnetid_dev_named("0000:01:00.0", "mlx5_0", "0000:01:00.0"));
	CHECK(!smc_pnetid_dev_named("rxe1", "rxe0", NULL));
	CHECK(!smc_pnetid_dev_named("rxe1", "rxe0", "0000:01:00.0"));
}

/* An LLC view of @type in encoding @version with @flags, all else zero */
static void llc_init(struct smc_llc_msg *m, u8 type, u8 version, u8 flags)
{
	memset(m, 0, sizeof(*m));
	m->hdr.type = type;
	m->hdr.version = version;
	m->hdr.flags = flags;
}

/* LLC: which headers a receiver takes, drops or refuses */
static void test_llc_hdr(void)
{
	struct smc_llc_hdr h;
	u8 b[64] = { 0 };

	b[0] = SMC_LLC_TEST_LINK;
	b[1] = 44;
	CHECK_EQ(smc_llc_parse_hdr(b, 44, &h), 0);
	CHECK_EQ(h.version, 1);
	CHECK_EQ(h.length, 44);
	CHECK_EQ(smc_llc_parse_hdr(b, 43, &h), -EPROTO);
	b[1] = 45;
	CHECK_EQ(smc_llc_parse_hdr(b, 64, &h), -EPROTO);
	/* v2: the length in the sender's byte order, at least 44 */
	b[0] = SMC_LLC_V2 | SMC_LLC_TEST_LINK;
	smc_put_host16(b + 1, 44);
	CHECK_EQ(smc_llc_parse_hdr(b, 44, &h), 0);
	CHECK_EQ(h.version, 2);
	smc_put_host16(b + 1, 43);
	CHECK_EQ(smc_llc_parse_hdr(b, 64, &h), -EPROTO);
	smc_put_host16(b + 1, 8000);
	CHECK_EQ(smc_llc_parse_hdr(b, 64, &h), 0);
	CHECK_EQ(h.length, 8000);
	/* dropped: 0x05 in v1, 0x03 and 0x08 in v2, 0x23, 0x28, CDC */
	b[1] = 44;
	b[2] = 0;
	b[0] = SMC_LLC_REQ_ADD_LINK;
	CHECK_EQ(smc_llc_parse_hdr(b, 44, &h), -EOPNOTSUPP);
	b[0] = SMC_LLC_V2 | SMC_LLC_REQ_ADD_LINK;
	CHECK_EQ(smc_llc_parse_hdr(b, 44, &h), 0);
	b[0] = 0x23;
	CHECK_EQ(smc_llc_parse_hdr(b, 44, &h), -EOPNOTSUPP);
	b[0] = 0x28;
	CHECK_EQ(smc_llc_parse_hdr(b, 44, &h), -EOPNOTSUPP);
	b[0] = 0x0a;
	CHECK_EQ(smc_llc_parse_hdr(b, 44, &h), -EOPNOTSUPP);
	b[0] = 0xFE;
	CHECK_EQ(smc_llc_parse_hdr(b, 44, &h), -EOPNOTSUPP);
}

/* CONFIRM LINK, v2 encoding: every field at its offset */
static void test_llc_confirm_link(void)
{
	struct smc_llc_msg m, q;
	u8 b[SMC_LLC_MSG_LEN];
	int i;

	llc_init(&m, SMC_LLC_CONFIRM_LINK, 2,
		 SMC_LLC_FLAG_RESP | SMC_LLC_FLAG_NO_RMBE_EYEC);
	for (i = 0; i < 6; i++)
		m.confirm_link.mac[i] = 0xa0 + i;
	for (i = 0; i < 16; i++)
		m.confirm_link.gid[i] = i;
	m.confirm_link.qpn = 0x123456;
	m.confirm_link.link_id = 1;
	memcpy(m.confirm_link.link_uid, "\x01\x02\x03\x04", 4);
	m.confirm_link.max_links = 3;
	m.confirm_link.max_conns = 255;
	CHECK_EQ(smc_llc_build(b, sizeof(b), &m, NULL), 44);
	CHECK_EQ(b[0], 0x21);
	CHECK_EQ(smc_get_host16(b + 1), 44);
	CHECK_EQ(b[3], 0x83);
	CHECK_EQ(b[4], 0xa0);
	CHECK_EQ(b[9], 0xa5);
	CHECK_EQ(b[10], 0);
	CHECK_EQ(b[25], 15);
	CHECK_EQ(b[26], 0x12);
	CHECK_EQ(b[28], 0x56);
	CHECK_EQ(b[29], 1);
	CHECK_EQ(b[30], 1);
	CHECK_EQ(b[33], 4);
	CHECK_EQ(b[34], 3);
	CHECK_EQ(b[35], 255);
	for (i = 36; i < 44; i++)
		CHECK_EQ(b[i], 0);
	CHECK_EQ(smc_llc_parse(b, sizeof(b), &q), 0);
	m.hdr.length = 44;
	CHECK(!memcmp(&m, &q, sizeof(q)) || !"view differs");
	corpus_add("llc", b, sizeof(b));
	/* an output buffer too small */
	CHECK_EQ(smc_llc_build(b, 43, &m, NULL), -EINVAL);
}

/* ADD LINK v2: the rkey triples after the extension */
static void test_llc_add_link_v2(void)
{
	struct smc_llc_rkey rk[3] = {
		{ 1, 2, 0x1000 }, { 3, 4, 0x2000 }, { 5, 6, 0xffff00000000 },
	}, got;
	struct smc_llc_msg m, q;
	u8 b[256];
	int len;

	llc_init(&m, SMC_LLC_ADD_LINK, 2, 0);
	m.add_link.qpn = 0xabcdef;
	m.add_link.link_id = 2;
	m.add_link.mtu = 3;
	m.add_link.psn = 0x010203;
	m.add_link.v2_ext = true;
	m.add_link.direct = true;
	m.add_link.target_gid[15] = 9;
	m.add_link.rkey_cnt = 3;
	len = smc_llc_build(b, sizeof(b), &m, rk);
	CHECK_EQ(len, 72 + 3 * 16);
	CHECK_EQ(b[0], 0x22);
	CHECK_EQ(smc_get_host16(b + 1), len);
	CHECK_EQ(smc_get_be24(b + 28), 0xabcdef);
	CHECK_EQ(b[31], 2);
	CHECK_EQ(b[32], 3);
	CHECK_EQ(smc_get_be24(b + 33), 0x010203);
	CHECK_EQ(b[44], 0x80);
	CHECK_EQ(b[61], 9);
	CHECK_EQ(smc_get_host16(b + 70), 3);
	CHECK_EQ(smc_get_be32(b + 72 + 32), 5);
	CHECK_EQ(smc_get_be64(b + 72 + 40), 0xffff00000000);
	corpus_add("llc", b, len);
	CHECK_EQ(smc_llc_parse(b, len, &q), 0);
	m.hdr.length = len;
	CHECK(!memcmp(&m, &q, sizeof(q)) || !"view differs");
	CHECK_EQ(smc_llc_add_link_rkey(b, len, &q, 2, &got), 0);
	CHECK_EQ(got.rkey_new, 6);
	CHECK_EQ(smc_llc_add_link_rkey(b, len, &q, 3, &got), -EINVAL);
	/* a count above what the length holds: only what is there */
	smc_put_host16(b + 70, 200);
	CHECK_EQ(smc_llc_parse(b, len, &q), 0);
	CHECK_EQ(q.add_link.rkey_cnt, 3);
	/* a received buffer cut short: fewer triples */
	CHECK_EQ(smc_llc_parse(b, 100, &q), 0);
	CHECK_EQ(q.add_link.rkey_cnt, 1);
	/* triples without their array cannot be built */
	CHECK_EQ(smc_llc_build(b, sizeof(b), &m, NULL), -EINVAL);
	/* v1 ADD LINK reject: the reason in byte 2 */
	llc_init(&m, SMC_LLC_ADD_LINK, 1,
		 SMC_LLC_FLAG_RESP | SMC_LLC_FLAG_ADD_LINK_REJ);
	m.hdr.rej_rsn = SMC_LLC_REJ_NO_ALT_PATH;
	CHECK_EQ(smc_llc_build(b, sizeof(b), &m, NULL), 44);
	CHECK_EQ(b[0], 0x02);
	CHECK_EQ(b[1], 44);
	CHECK_EQ(b[2], 1);
	CHECK_EQ(b[3], 0xc0);
	CHECK_EQ(smc_llc_parse(b, 44, &q), 0);
	CHECK_EQ(q.hdr.rej_rsn, 1);
}

/* The other types, both encodings where they exist */
static void test_llc_roundtrip(void)
{
	static const u8 types[] = {
		SMC_LLC_ADD_LINK_CONT, SMC_LLC_DELETE_LINK,
		SMC_LLC_REQ_ADD_LINK, SMC_LLC_CONFIRM_RKEY, SMC_LLC_TEST_LINK,
		SMC_LLC_CONFIRM_RKEY_CONT, SMC_LLC_DELETE_RKEY,
	};
	struct smc_llc_msg m, q;
	unsigned int t, v;
	u8 b[128];
	int len;

	for (t = 0; t < ARRAY_SIZE(types); t++) {
		for (v = 1; v <= 2; v++) {
			llc_init(&m, types[t], v, SMC_LLC_FLAG_RESP);
			switch (types[t]) {
			case SMC_LLC_ADD_LINK_CONT:
				m.add_link_cont.link_id = 2;
				m.add_link_cont.num_rkeys = 3;
				m.add_link_cont.rk[1].addr_new = 0x1122334455667788;
				break;
			case SMC_LLC_DELETE_LINK:
				m.delete_link.link_id = 1;
				m.delete_link.reason = SMC_LLC_DEL_PROT_VIOL;
				break;
			case SMC_LLC_REQ_ADD_LINK:
				m.req_add_link.gid_cnt = 2;
				m.req_add_link.gid[1][15] = 7;
				break;
			case SMC_LLC_CONFIRM_RKEY:
				m.confirm_rkey.num_other = 2;
				m.confirm_rkey.rkey = 0xdeadbeef;
				m.confirm_rkey.addr = 0x100000;
				m.confirm_rkey.other[1].link_id = 3;
				m.confirm_rkey.other[1].rkey = 9;
				m.confirm_rkey.other[1].addr = 0x200000;
				break;
			case SMC_LLC_DELETE_RKEY:
				m.delete_rkey.count = 2;
				m.delete_rkey.err_mask = 0x40;
				m.delete_rkey.rkey[1] = 0x01020304;
				break;
			case SMC_LLC_TEST_LINK:
				m.test_link.user_data[15] = 0x5a;
				break;
			}
			len = smc_llc_build(b, sizeof(b), &m, NULL);
			/* v1-only and v2-only types refuse the other */
			if ((types[t] == SMC_LLC_REQ_ADD_LINK && v == 1) ||
			    ((types[t] == SMC_LLC_ADD_LINK_CONT ||
			      types[t] == SMC_LLC_CONFIRM_RKEY_CONT) && v == 2)) {
				CHECK_EQ(len, -EINVAL);
				continue;
			}
			CHECK(len >= 44);
			corpus_add("llc", b, len);
			CHECK_EQ(smc_llc_parse(b, len, &q), 0);
			m.hdr.length = len;
			CHECK(!memcmp(&m, &q, sizeof(q)) || !"view differs");
		}
	}
	/* fixed offsets of a few fields */
	llc_init(&m, SMC_LLC_DELETE_LINK, 1,
		 SMC_LLC_FLAG_DEL_LINK_ALL | SMC_LLC_FLAG_DEL_LINK_ORDERLY);
	m.delete_link.reason = SMC_LLC_DEL_PROG_INIT_TERM;
	CHECK_EQ(smc_llc_build(b, sizeof(b), &m, NULL), 44);
	CHECK_EQ(b[3], 0x60);
	CHECK_EQ(smc_get_be32(b + 5), 0x00030000);
	/* more than two GIDs in REQUEST ADD LINK */
	b[0] = 0x25;
	smc_put_host16(b + 1, 44);
	b[24] = 3;
	CHECK_EQ(smc_llc_parse(b, 44, &q), -EPROTO);
	/* two GIDs need 60 bytes */
	b[24] = 2;
	CHECK_EQ(smc_llc_parse(b, 44, &q), -EPROTO);
	/* the server's REQUEST ADD LINK response: 44 bytes, body zero */
	memset(b, 0xff, sizeof(b));
	llc_init(&m, SMC_LLC_REQ_ADD_LINK, 2, SMC_LLC_FLAG_RESP);
	CHECK_EQ(smc_llc_build(b, sizeof(b), &m, NULL), 44);
	CHECK_EQ(b[0], 0x25);
	CHECK_EQ(smc_get_host16(b + 1), 44);
	CHECK_EQ(b[3], 0x80);
	for (len = 4; len < 44; len++)
		CHECK_EQ(b[len], 0);
}

/*
 * SMC-Rv1 ADD LINK: both sides send their triples in ADD LINK
 * CONTINUATIONs, turn by turn, through the wire encoding.  Each must
 * get the other's, in order, once, and both must stop on the same turn.
 */
static void cont_send(struct smc_llc_rkey *rk, unsigned int n,
		      unsigned int *sent, bool resp, struct smc_llc_msg *q)
{
	struct smc_llc_msg m;
	u8 b[SMC_LLC_MSG_LEN];

	smc_llc_cont_fill(&m, 4, resp, rk, n, sent);
	CHECK_EQ(smc_llc_build(b, sizeof(b), &m, NULL), SMC_LLC_MSG_LEN);
	CHECK_EQ(b[0], SMC_LLC_ADD_LINK_CONT);
	CHECK_EQ(b[3], resp ? SMC_LLC_FLAG_RESP : 0);
	CHECK_EQ(smc_llc_parse(b, sizeof(b), q), 0);
	CHECK_EQ(q->add_link_cont.link_id, 4);
}

static void cont_learn(const struct smc_llc_msg *q,
		       const struct smc_llc_rkey *want, unsigned int *got)
{
	unsigned int i;

	for (i = 0; i < smc_llc_cont_count(q); i++, (*got)++)
		CHECK(!memcmp(&q->add_link_cont.rk[i], &want[*got],
			      sizeof(want[0])) || !"triple differs");
}

static void test_llc_cont_exchange(void)
{
	static const unsigned int sizes[] = { 0, 1, 2, 3, 4, 5, 8, 255 };
	static struct smc_llc_rkey rs[255], rc[255];
	unsigned int a, b, i, ns, nc, sent_s, sent_c, got_s, got_c, turns;
	bool more_s, more_c;
	struct smc_llc_msg q;

	for (i = 0; i < 255; i++) {
		rs[i] = (struct smc_llc_rkey){ i + 1, i + 1000, 0x10000ULL * i };
		rc[i] = (struct smc_llc_rkey){ i + 7, i + 5000, 0x30000ULL * i };
	}
	for (a = 0; a < ARRAY_SIZE(sizes); a++) {
		for (b = 0; b < ARRAY_SIZE(sizes); b++) {
			ns = sizes[a];
			nc = sizes[b];
			sent_s = 0;
			sent_c = 0;
			got_s = 0;
			got_c = 0;
			turns = 0;
			do {
				/* the server's message, then the answer */
				cont_send(rs, ns, &sent_s, false, &q);
				cont_learn(&q, rs, &got_c);
				more_c = sent_c + 2 < nc ||
					 smc_llc_cont_left(&q);
				cont_send(rc, nc, &sent_c, true, &q);
				cont_learn(&q, rc, &got_s);
				more_s = sent_s < ns || smc_llc_cont_left(&q);
				CHECK_EQ(more_s, more_c);
			} while (more_s && ++turns < 200);
			CHECK_EQ(got_c, ns);
			CHECK_EQ(got_s, nc);
			CHECK_EQ(turns + 1, ns > nc ? (ns + 1) / 2 ?: 1 :
					    (nc + 1) / 2 ?: 1);
		}
	}
}

static const struct test tests[] = {
	{ "fold_window", test_fold_window },
	{ "fold_sim", test_fold_sim },
	{ "clc_hdr_valid", test_hdr_valid },
	{ "clc_hdr_reject", test_hdr_reject },
	{ "proposal_example_bytes", test_proposal_example },
	{ "proposal_example_parse", test_proposal_example_parse },
	{ "proposal_roundtrip_full", test_proposal_roundtrip_full },
	{ "proposal_roundtrip_variants", test_proposal_roundtrip_variants },
	{ "proposal_offsets", test_proposal_offsets },
	{ "proposal_truncated", test_proposal_truncated },
	{ "proposal_bad_length", test_proposal_bad_length },
	{ "proposal_bad_eyecatcher_type_version",
	  test_proposal_bad_eyecatcher },
	{ "proposal_bad_counts", test_proposal_bad_counts },
	{ "proposal_bad_offsets", test_proposal_bad_offsets },
	{ "proposal_ipv6_count_quirk", test_proposal_ipv6_quirk },
	{ "proposal_ism_iterator", test_prop_ism_iter },
	{ "proposal_add_ism", test_prop_add_ism },
	{ "accept_smcd_lengths_roundtrip", test_accept_d_lengths },
	{ "accept_smcr_lengths_roundtrip", test_accept_r_lengths },
	{ "accept_layout", test_accept_layout },
	{ "accept_malformed", test_accept_bad },
	{ "accept_oversized", test_accept_oversized },
	{ "decline", test_decline },
	{ "decline_codes", test_decline_codes },
	{ "buf_compress", test_buf_compress },
	{ "cursor_add", test_curs_add },
	{ "cursor_prev_equal", test_curs_prev_equal },
	{ "close_fsm_active_close", test_close_fsm_active_close },
	{ "close_fsm_half_close", test_close_fsm_half_close },
	{ "close_fsm_abort", test_close_fsm_abort },
	{ "cursor_diff", test_curs_diff },
	{ "cursor_comp_stale_seq", test_curs_comp_stale },
	{ "cursor_free_readable", test_curs_space },
	{ "smcr_cdc", test_smcr_cdc },
	{ "smcd_cdc", test_smcd_cdc },
	{ "cons_update_rule", test_cons_update_rule },
	{ "clc_frame_from_stream", test_clc_frame },
	{ "smcr_cq_pick_least_used", test_cq_pick },
	{ "smcr_add_budget_bounded", test_add_budget },
	{ "pnetid_normalize_match", test_pnetid },
	{ "llc_hdr", test_llc_hdr },
	{ "llc_confirm_link_layout", test_llc_confirm_link },
	{ "llc_add_link_v2_rkeys", test_llc_add_link_v2 },
	{ "llc_roundtrip_types", test_llc_roundtrip },
	{ "llc_cont_exchange", test_llc_cont_exchange },
};

int main(int argc, char **argv)
{
	int extra = 0, i, nfail = 0;
	unsigned int n = ARRAY_SIZE(tests);

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--extra") && i + 1 < argc)
			extra = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--corpus") && i + 1 < argc)
			corpus_dir = argv[++i];
		else if (!strcmp(argv[i], "--count"))
			return printf("%u\n", n) < 0;
	}
	if (corpus_dir)
		mkdir(corpus_dir, 0755);
	printf("TAP version 13\n1..%u\n", n + extra);
	for (i = 0; i < (int)n; i++) {
		failures = 0;
		tests[i].fn();
		printf("%sok %d %s\n", failures ? "not " : "", i + 1,
		       tests[i].name);
		fflush(stdout);
		if (failures)
			nfail++;
	}
	if (!extra)
		printf("# %u tests, %d failed\n", n, nfail);
	return nfail ? 1 : 0;
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the modes of hostile_peer share: those of hostile_peer.c (its
 * KTAP suite and the servers and clients other tests run) and the
 * mutate mode of hostile_mutate.c.  CLC facts, builders and checks, the
 * peer cgroup whose TCP sockets claim SMC, socket helpers and the
 * counts a run is checked with.  Defined in hostile_clc.c.
 */
#ifndef SMC_SELFTEST_HOSTILE_CLC_H
#define SMC_SELFTEST_HOSTILE_CLC_H

#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>

/* CLC facts, from the protocol description (not the module's headers) */
#define EYE_R		0xE2D4C3D9u	/* EBCDIC "SMCR" */
#define EYE_D		0xE2D4C3C4u	/* EBCDIC "SMCD" */
#define CLC_PROPOSAL	1
#define CLC_ACCEPT	2
#define CLC_CONFIRM	3
#define CLC_DECLINE	4
#define TYPE_R		0
#define TYPE_D		1
#define TYPE_N		2
#define TYPE_B		3
#define DECL_LEN_V1	28
#define DECL_LEN_V2	44
#define CLC_MAX		652

#define R_PEERNOSMC	0x03010000u
#define R_NOSMCDEV	0x03030000u
#define R_NOSMCDDEV	0x03030001u
#define R_NOV2DEXT	0x03030005u
#define R_NOSMCD2DEV	0x03030007u
#define R_NOUEID	0x03030008u
#define R_MODEUNSUPP	0x03040000u
#define R_MAX_DMB	0x030d0000u
#define R_PEERDECL	0x05000000u
#define R_MEM		0x01010000u
#define R_SYNCERR	0x04000000u

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define CLC_TIMEOUT_MS	6000
#define QUICK_MS	3000	/* answer to a malformed message */
#define SLOW_MS		15000	/* CLC timeout plus slack under TCG */

/* ------------------------------------------------------------------ */
/* byte helpers: big endian, as on the wire */

void put16(uint8_t *p, uint16_t v);
void put32(uint8_t *p, uint32_t v);
void put24(uint8_t *p, uint32_t v);
void put64(uint8_t *p, uint64_t v);
uint16_t get16(const uint8_t *p);
uint32_t get24(const uint8_t *p);
uint32_t get32(const uint8_t *p);
uint64_t get64(const uint8_t *p);
void clc_hdr(uint8_t *b, uint32_t eye, uint8_t type, uint16_t len,
	     uint8_t byte7);

/* ------------------------------------------------------------------ */
/* cgroup v2: what a socket carries is decided at its socket() */

/* TCP sockets created from here on carry the SMC option */
void cg_enter_peer(void);
/* and from here on not */
void cg_enter_app(void);

/* ------------------------------------------------------------------ */
/* sockets */

void set_timeouts(int fd, int ms);
void set_nonblock(int fd, int on);
struct sockaddr_in lo_addr(uint16_t port);
int listen_at(int family, int proto, struct sockaddr_in a,
	      uint16_t *bound);
int listen_on(int family, int proto, uint16_t port, uint16_t *bound);
int hostile_connect(uint16_t port);
int send_all(int fd, const void *buf, size_t len);
int recv_upto(int fd, uint8_t *buf, int want, int ms, int *end,
	      int *err);
int recv_clc(int fd, uint8_t *buf, int max, int ms, int *end,
	     int *err);
/* @end of recv_upto() in words; not thread-safe (a static buffer) */
const char *end_words(int end, int err, char *buf, size_t len);
const char *end_name(int end, int err);

/* ------------------------------------------------------------------ */
/* what we learn from our own client's Proposal */

struct ism_entry {
	uint64_t gid;
	uint16_t chid;
};

extern struct ism_entry own_ism[8];
extern int own_ism_cnt;

/* ------------------------------------------------------------------ */
/* Proposal, Decline, Accept/Confirm builders */

struct prop {
	uint8_t version, typev1, typev2, type, release;
	uint32_t eye, trl_eye;
	int eids;
	int ngid;
	struct ism_entry gid[10];
	int set_ipoff, ipoff;
	int set_v2off, v2off;
	int set_d2off, d2off;
	int ipv6_cnt;		/* v1 prefix entries (v1 = D) */
	int byte47;		/* -1: leave zero */
	int eid_cnt_field;	/* -1: eids */
	int gid_cnt_field;	/* -1: ngid */
};

void prop_init(struct prop *p);
void prop_own_gids(struct prop *p);
int prop_build(uint8_t *b, int max, const struct prop *p);
int decline_build(uint8_t *b, int version, uint32_t code);

/* SMC-D Accept or Confirm (v2 with a release-1 first contact, or v1) */
struct acc {
	uint8_t type, version;
	uint16_t chid;
	uint64_t gid, gid_ext, token;
	const uint8_t *eid;
};

int acc_build(uint8_t *b, const struct acc *a);

/* ------------------------------------------------------------------ */
/* checks of what the kernel sent */

int check_decline(const uint8_t *b, int got, int want_version,
		  uint32_t *code, char *why, size_t wl);
int check_proposal_frame(const uint8_t *b, int got, char *why,
			 size_t wl);
int proposal_v2_ext(const uint8_t *b, int len, char *why, size_t wl);
/* Also records the offered GIDs in own_ism[] */
int check_proposal(const uint8_t *b, int got, char *why, size_t wl);
int check_accept(const uint8_t *b, int got, char *why, size_t wl);
uint64_t own_gid_ext(void);

/* ------------------------------------------------------------------ */
/* loopback-ism DMB counters (debugfs, optional) */

#define LO_DEBUGFS	"/sys/kernel/debug/smc/loopback-ism"

struct dmbs {
	long reg, att;
};

/* Mounts debugfs if needed; 1 if the counters can be read */
int lo_available(void);
int lo_read(struct dmbs *d);

/* ------------------------------------------------------------------ */
/* set-up, and the counts a run ends with */

/* AF_SMC sockets in the smc_diag dump, or -errno */
int smc_socket_count(void);
/* The module parameter smcd is set */
int smcd_param(void);
/*
 * Root, AF_SMC, the cgroups and the sock_ops program, or exit 4 (1 if
 * the smc module is loaded but AF_SMC fails)
 */
void common_setup(void);

/* hostile_mutate.c: the mode "mutate SEED SECONDS [PORTBASE]" */
int mutate_main(int argc, char **argv);

#endif /* SMC_SELFTEST_HOSTILE_CLC_H */

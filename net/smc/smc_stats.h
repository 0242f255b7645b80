/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared Memory Communications: the statistics of a network namespace,
 * as SMC_NETLINK_GET_STATS and GET_FBACK_STATS report them.
 *
 * The counters are per CPU and only ever added to (the usage gauges
 * are added to and subtracted from, on whatever CPU): a data path
 * touches no shared cache line.  A dump sums them over the CPUs.
 */
#ifndef __SMC_STATS_H
#define __SMC_STATS_H

#include <linux/log2.h>
#include <linux/mutex.h>
#include <linux/percpu.h>

#define SMC_STATS_BUCKETS	9	/* <= 8 KiB, ... <= 1 MiB, more */
#define SMC_FBACK_SLOTS		36	/* reason codes kept per direction */

enum smc_stats_tech_idx {
	SMC_STATS_R,		/* the order of upstream's array */
	SMC_STATS_D,
	SMC_STATS_TECHS
};

struct smc_stats_buf {
	u64	size_small_peer_cnt;
	u64	size_small_cnt;
	u64	full_peer_cnt;
	u64	full_cnt;
	u64	reuse_cnt;
	u64	alloc_cnt;
	u64	dgrade_cnt;
};

/* Only u64 members: a sum over the CPUs adds them as an array */
struct smc_stats_tech {
	u64			tx_bufsize[SMC_STATS_BUCKETS];
	u64			rx_bufsize[SMC_STATS_BUCKETS];
	u64			tx_pload[SMC_STATS_BUCKETS];
	u64			rx_pload[SMC_STATS_BUCKETS];
	struct smc_stats_buf	tx_buf;
	struct smc_stats_buf	rx_buf;
	u64			clnt_v1_succ_cnt;
	u64			clnt_v2_succ_cnt;
	u64			srv_v1_succ_cnt;
	u64			srv_v2_succ_cnt;
	u64			sendpage_cnt;
	u64			splice_cnt;
	u64			cork_cnt;
	u64			ndly_cnt;
	u64			urg_data_cnt;
	u64			rx_bytes;
	u64			tx_bytes;
	u64			rx_cnt;
	u64			tx_cnt;
	u64			rx_bufuse;	/* bytes in use (gauge) */
	u64			tx_bufuse;
};

struct smc_stats {
	struct smc_stats_tech	tech[SMC_STATS_TECHS];
	u64			clnt_hs_err_cnt;
	u64			srv_hs_err_cnt;
};

struct smc_fback_slot {
	u32	code;		/* 0: unused */
	u16	count;		/* wraps, as upstream's */
};

/* Fallback reasons, per direction; rare, so under one mutex (a leaf) */
struct smc_fback_stats {
	struct mutex		lock;		/* the fields below */
	struct smc_fback_slot	srv[SMC_FBACK_SLOTS];
	struct smc_fback_slot	clnt[SMC_FBACK_SLOTS];
	u64			srv_cnt;
	u64			clnt_cnt;
};

/* The bucket of a payload or buffer size: 8 KiB << index and above */
static inline unsigned int smc_stats_bucket(u64 size)
{
	return min_t(unsigned int, fls64((size - 1) >> 13),
		     SMC_STATS_BUCKETS - 1);
}

#define SMC_STAT_ADD(stats, t, field, n)				\
	this_cpu_add((stats)->tech[t].field, (n))
#define SMC_STAT_INC(stats, t, field)	SMC_STAT_ADD(stats, t, field, 1)
#define SMC_STAT_SUB(stats, t, field, n)				\
	this_cpu_sub((stats)->tech[t].field, (n))

struct net;
struct smc_sock;

struct smc_stats __percpu *smc_stats_alloc(struct smc_fback_stats *fb);
void smc_stats_free(struct smc_stats __percpu *stats);
void smc_stats_fback(struct smc_sock *smc, u32 reason);
void smc_stats_buf_get(struct smc_stats __percpu *stats, int t, bool rmb,
		       u32 len, bool reused, bool dgraded);
void smc_stats_buf_put(struct smc_stats __percpu *stats, int t, bool rmb,
		       u32 len);
void smc_stats_hs_done(struct smc_sock *smc, bool server, u8 version);
void smc_stats_hs_err(struct smc_sock *smc, bool server);
void smc_stats_tx(struct smc_sock *smc, size_t len, int rc, bool oob);
void smc_stats_rx(struct smc_sock *smc, size_t len, int rc, bool oob,
		  u32 readable);
void smc_stats_splice(struct smc_sock *smc);
void smc_stats_sockopt(struct smc_sock *smc, int optname, int val);
void smc_stats_tx_full(struct smc_sock *smc, bool peer);

#endif /* __SMC_STATS_H */

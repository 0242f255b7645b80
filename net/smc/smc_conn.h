/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared Memory Communications: a connection over SMC-D or SMC-R.
 *
 * The state both transports share (rings, cursors, close state, urgent
 * data) and the data path's interface: smc_conn.c (a connection's life,
 * poll, ioctl), smc_rx.c and smc_tx.c.  Transport objects are only
 * pointed to here.
 */
#ifndef _SMC_CONN_H
#define _SMC_CONN_H

#include <linux/seqlock.h>
#include <linux/smc_diag.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include "smc_cdc_wire.h"
#include "smc_close_fsm.h"
#include "smc_ism.h"
#include "smc_ring.h"

struct msghdr;
struct pipe_inode_info;
struct smc_sock;
struct smcd_dev;
struct smcd_dmb;
struct smcd_lgr;
struct smcr_buf;
struct smcr_lgr;
struct smcr_link;
struct smcr_slot;
struct sock;

/*
 * Which transport carries the data of a socket.  SMC_PATH_TCP covers
 * both "not decided yet" (the handshake still runs on TCP) and
 * "fallback" (decided for good); use_fallback tells them apart.
 */
enum smc_path {
	SMC_PATH_TCP,
	SMC_PATH_SMCR,
	SMC_PATH_SMCD,
};

/*
 * The data state of a connection over SMC-D or SMC-R.  The peer writes
 * into our receive ring (rx: the data part of our DMB, or our RMB); we
 * write into tx, the data part of the peer's DMB (SMC-D no-copy) or our
 * send buffer, from which RDMA writes copy each byte to the same offset
 * of the peer's RMB (SMC-R; the two have the same size).
 */
struct smc_conn {
	/* its transport's: set once (WRITE_ONCE) when the transport takes
	 * the connection; sock_diag reads it with READ_ONCE
	 */
	const struct smc_conn_ops *ops;
	/* set when the connection joins its group, under that group list's
	 * lock, with lgr_id; read-only after, sock_diag reads both unlocked
	 */
	u32			alert_token;	/* ours, in lgr */
	/* copies for sock_diag, which must not touch the buffers; set by
	 * the handshake (smc sock lock), read-only after
	 */
	u32			lgr_id;
	u32			rmb_len;	/* SMC-D: the first window */
	u32			peer_len;	/* SMC-D: the first window */
	/* SMC-D: the peer's fold now; WRITE_ONCE by the sender (smc sock
	 * lock), READ_ONCE by sock_diag and the statistics
	 */
	u32			tx_fold;
	/* SMC-D: our window as our reader last saw it (smc sock lock);
	 * the statistics read it with READ_ONCE
	 */
	u32			rx_window;
	/* set by the handshake, cleared by the teardown: under the smc
	 * sock lock, or an orphan's, which no call reaches any more.  SMC-D
	 * clears rx under rx_lock too, for the doorbell and sock_diag,
	 * which look at it under rx_lock; SMC-R leaves rx set, for a CDC
	 * handler that found the connection (the RMB outlives it).
	 */
	struct smc_ring		rx;		/* our ring, rmb_ring bytes */
	struct smc_ring		tx;		/* send ring, tx_ring bytes */
	/* set once by the handshake (0 before: the receive path copes),
	 * read-only after
	 */
	u32			rmb_ring;	/* data ring of rmb */
	u32			tx_ring;	/* data ring of peer */

	/*
	 * SMC-D (smcd_conn.c, smcd_lgr.c): set by the handshake and
	 * cleared by the teardown, under the smc sock lock.  sock_diag
	 * reads dev (READ_ONCE), the tokens and GIDs unlocked: a device
	 * is unregistered only at module unload.
	 */
	struct {
		struct smcd_dev	*dev;
		struct smcd_lgr	*lgr;
		u64		rmb_token;
		u64		peer_token;
		struct smcd_gid	peer_gid;
		struct smcd_dmb	*rmb;	/* ours, the peer writes */
		struct smcd_dmb	*peer;	/* the peer's, attached */
		kuid_t		rmb_uid; /* init_net: rmb counts here */
	} smcd;

	/* SMC-R (smcr_*.c) */
	struct {
		/* holds a reference; set by smcr_lgr_add_conn() under
		 * smcr_lgrs_lock, cleared by the teardown once torn
		 */
		struct smcr_lgr	*rlgr;
		/* the lgr's, in use: set by smcr_lgr_add_conn(), moved
		 * under tx_lock, cleared by the teardown once torn; lockless
		 * readers (slot reservation, the failover's pick, netlink)
		 * recheck under tx_lock or only count
		 */
		struct smcr_link *link;
		/* set by the handshake (the RMB under llc_flow), read-only
		 * until the teardown: the sender reads snd_buf under tx_lock
		 */
		struct smcr_buf	*rmb_buf; /* our RMB */
		struct smcr_buf	*snd_buf; /* our send buffer */
		/* under tx_lock; smcr_tx_prepare() peeks at it unlocked: a
		 * move that takes it away owes the sender one (tx_owed)
		 */
		struct smcr_slot *tx_slot; /* reserved for the next CDC */
		/* the peer's RMB, -1: none; under tx_lock, but for the -1
		 * of smcr_lgr_add_conn() and of the teardown (once torn)
		 */
		int		rtok;
		/* the peer's RMB on our link, for the writes (tx_lock) */
		u64		peer_rmb_addr;
		u32		peer_rkey;
		/* peer's token, in our CDCs; written under tx_lock, read
		 * by the token check under smcr_lgrs_lock only: a stale
		 * one is the same answer a moment earlier
		 */
		u32		peer_alert;
		/* no link can carry the connection any more: senders give
		 * up; set once (WRITE_ONCE), read locklessly: a late look
		 * costs a wait
		 */
		bool		tx_dead;
		/* under tx_lock: moving to another link (no sends
		 * meanwhile), a reservation dropped for it, torn down (a
		 * move leaves it alone).  smcr_tx_prepare() peeks at
		 * tx_moving unlocked and rechecks it under tx_lock before
		 * it keeps a slot.
		 */
		bool		tx_moving;
		bool		tx_owed;
		bool		torn;
		/* the peer may write into our RMB still: not back to the
		 * pool; its memory regions go on every link before it is
		 * freed.  Set under the smc sock lock by whoever then tears
		 * the connection down (a failed handshake, the reaper).
		 */
		bool		rmb_kept;
		/* the peer writes no more into our RMB (rx_lock) */
		bool		peer_stopped;
		/* released by the application before the peer was done
		 * writing; under rx_lock, teardown reads it unlocked once
		 * it owns the orphan
		 */
		bool		orphan;
		bool		release_queued;	/* under rx_lock */
		unsigned long	orphan_end; /* then reaped, rx_lock */
		/* queued only by the one that set release_queued */
		struct work_struct release_work;
	} smcr;

	/* last CDC sequence sent (tx_lock), last one whose send completed
	 * (completion); autocorking reads both unlocked, its smp_mb() pair
	 * with smc_tx_cdc_done() orders them
	 */
	u16			cdc_tx_seq;
	u16			cdc_tx_done;
	/* data held back until the CDC in flight completes, and the work
	 * that then sends it (see smc_tx_autocork()): the flag is written
	 * under the smc sock lock, the completion reads it (READ_ONCE);
	 * the work holds a socket reference while queued
	 */
	bool			tx_autocorked;
	struct work_struct	tx_work;
	/* SMC-D: gives back the ring's idle pages (smc_tx_trim_work());
	 * armed and cancelled under the smc sock lock, holds a socket
	 * reference while queued
	 */
	struct delayed_work	tx_trim;
	/* jiffies of the last write, and the back-off: smc sock lock */
	unsigned long		tx_last;
	u8			tx_trim_backoff;
	/* SMC-D: a write found the window full; widen it when the bytes
	 * in flight allow (smc sock lock)
	 */
	bool			tx_widen;
	/* last CDC sequence taken: rx_lock; the failover check of
	 * smcr_lgr_rx_cdc() reads both unlocked
	 */
	u16			cdc_rx_seq;
	bool			cdc_rx_seq_valid;

	/* orders the messages to the peer */
	spinlock_t		tx_lock;
	/* written under tx_lock and the smc sock lock (sendmsg), so
	 * either serves a reader; poll glances at it unlocked
	 */
	struct smc_cursor	tx_prod;	/* next byte we produce */
	/* tx_lock; the autocork test reads it under the smc sock lock
	 * alone (an SMC-R failover may write it meanwhile)
	 */
	struct smc_cursor	tx_prod_sent;	/* last one the peer got */
	/* written by sendmsg under the smc sock lock, and under tx_lock
	 * but for the write-blocked bit; read under tx_lock
	 */
	u8			tx_prod_flags;
	/* sticky close flags, under tx_lock */
	u8			tx_conn_flags;
	/* SMC_TX_NOSPACE: a writer found the peer's ring full; atomic
	 * bit operations
	 */
	unsigned long		tx_flags;

	/* local reading position: smc sock lock, written under rx_lock
	 * and rx_seq; every send reads it under tx_lock alone, through
	 * rx_seq (an older value is a consumer update the peer gets again
	 * with the next one, a torn one would free room never read);
	 * poll and the statistics glance at it unlocked
	 */
	struct smc_cursor	rx_cons;
	/* last one the peer got: tx_lock; recvmsg reads it under the smc
	 * sock lock alone (an SMC-R failover may write it meanwhile)
	 */
	struct smc_cursor	rx_cons_sent;

	/*
	 * what the peer last told us (DMB header or CDC).  Writers take
	 * rx_lock and bump rx_seq (smc_rx_write_lock()); the hot readers
	 * (send, receive, poll) only retry on rx_seq, and smc_peer_flags()
	 * reads peer_conn_flags alone with READ_ONCE.
	 */
	spinlock_t		rx_lock;
	seqcount_spinlock_t	rx_seq;
	struct smc_cursor	peer_prod;
	struct smc_cursor	peer_cons;
	u8			peer_prod_flags;
	u8			peer_conn_flags;

	/*
	 * Close state and urgent data, under rx_lock and rx_seq as the
	 * peer's cursors.  urg_pos is the urgent byte's place in our ring,
	 * urg_prod the producer cursor that announced it (a header
	 * repeating the announcement is not a new urgent byte).
	 */
	struct smc_close_fsm	fsm;		/* mirrored in sk_state */
	u8			urg_state;	/* enum smc_urg_state */
	u8			urg_byte;
	struct smc_cursor	urg_pos;
	struct smc_cursor	urg_prod;
	struct smc_cursor	urg_hole;	/* a replaced urgent byte */
	bool			urg_hole_set;
};

/* What a DMB header or a CDC message tells about the peer */
struct smc_cdc_view {
	struct smc_cursor	prod;
	struct smc_cursor	cons;
	u8			prod_flags;
	u8			conn_state_flags;
	/* SMC-R: the CDC's sequence number; an older one is dropped */
	bool			has_seq;
	u16			seq;
};

/* What TCP calls urg_data: none, valid (not read by MSG_OOB), read */
enum smc_urg_state {
	SMC_URG_NONE,
	SMC_URG_VALID,
	SMC_URG_READ,
};

/* Change the receive state of @c: rx_lock, and rx_seq for lockless readers */
static inline void smc_rx_write_lock(struct smc_conn *c)
{
	spin_lock_bh(&c->rx_lock);
	write_seqcount_begin(&c->rx_seq);
}

static inline void smc_rx_write_unlock(struct smc_conn *c)
{
	write_seqcount_end(&c->rx_seq);
	spin_unlock_bh(&c->rx_lock);
}

/* One cursor of the receive state (@src in @c), read without rx_lock */
static inline struct smc_cursor smc_rx_curs(struct smc_conn *c,
					    const struct smc_cursor *src)
{
	struct smc_cursor curs;
	unsigned int seq;

	do {
		seq = read_seqcount_begin(&c->rx_seq);
		curs = *src;
	} while (read_seqcount_retry(&c->rx_seq, seq));
	return curs;
}

/* Bits of smc_conn.tx_flags */
enum {
	SMC_TX_NOSPACE,	/* wake writers when the peer frees room */
};

/* smc_conn.c: a connection over SMC-D or SMC-R, its life */
void smc_conn_init(struct smc_conn *c);
void smc_conn_start(struct smc_sock *smc, enum smc_path path);
void smc_conn_close(struct smc_sock *smc);
__poll_t smc_conn_poll(struct smc_sock *smc);
int smc_conn_shutdown(struct smc_sock *smc, int how);
int smc_conn_ioctl(struct smc_sock *smc, unsigned int cmd,
		   unsigned long arg);

static inline u8 smc_peer_flags(struct smc_conn *c)
{
	return READ_ONCE(c->peer_conn_flags);
}

/* The peer will write nothing more */
static inline bool smc_peer_done(struct smc_conn *c)
{
	return smc_peer_flags(c) & (SMC_CDC_CS_DONE_WRITING |
				     SMC_CDC_CS_CLOSED | SMC_CDC_CS_ABORT);
}

/* The peer reads nothing more */
static inline bool smc_peer_gone(struct smc_conn *c)
{
	return smc_peer_flags(c) & (SMC_CDC_CS_CLOSED | SMC_CDC_CS_ABORT);
}

/* smc_rx.c: receiving */
bool smc_conn_rx_cdc(struct smc_sock *smc, const struct smc_cdc_view *in);
int smc_conn_recvmsg(struct smc_sock *smc, struct msghdr *msg, size_t len,
		     int flags, u32 *seen);
ssize_t smc_conn_splice_read(struct smc_sock *smc,
			     struct pipe_inode_info *pipe, size_t len,
			     bool nonblock);

/* What a reader at @cons sees: bytes, and the distance to the mark */
struct smc_rx_view {
	u32	avail;
	u32	to_mark;	/* U32_MAX: no urgent byte ahead */
	u8	urg_state;
	u8	peer_flags;	/* taken with avail: EOF never hides data */
	bool	at_hole;	/* the reader is at a replaced urgent byte */
};

/*
 * What a reader at @cons sees, from one consistent look at the peer's
 * cursors.  Inline: a blocking read looks twice, poll once a call.
 */
static __always_inline void smc_rx_look(struct smc_conn *c,
					const struct smc_cursor *cons,
					struct smc_rx_view *v)
{
	struct smc_cursor at, prod;
	unsigned int seq;

	do {
		seq = read_seqcount_begin(&c->rx_seq);
		/* poll passes rx_cons unlocked: a reader moves it meanwhile */
		at = *cons;
		prod = c->peer_prod;
		v->peer_flags = c->peer_conn_flags;
		v->at_hole = c->urg_hole_set &&
			     smc_curs_equal(&at, &c->urg_hole);
		v->urg_state = c->urg_state;
		/* while urgent state exists, rx_cons is not past the mark */
		v->to_mark = c->urg_state == SMC_URG_NONE ? U32_MAX :
			     smc_curs_diff(c->rmb_ring, &at, &c->urg_pos);
	} while (read_seqcount_retry(&c->rx_seq, seq));
	v->avail = min(smc_curs_diff(c->rmb_ring, &at, &prod), c->rmb_ring);
}

/* 1 if @v starts at a replaced urgent byte, which is no data at all */
static inline u32 smc_rx_skipped(const struct smc_rx_view *v)
{
	return v->avail && v->at_hole;
}

u32 smc_rx_normal(struct sock *sk, const struct smc_rx_view *v);
int smc_rcv_target(struct sock *sk, struct smc_conn *c, bool waitall,
		   size_t len, bool consumes);

/* smc_tx.c: sending */
void smc_tx_init(struct smc_conn *c);
int smc_conn_sendmsg(struct smc_sock *smc, struct msghdr *msg, size_t len);
void smc_tx_publish(struct smc_sock *smc);
void smc_tx_trim_cancel(struct smc_sock *smc);
void smc_tx_cdc_done(struct smc_sock *smc, u16 seq);
bool smc_tx_writable(struct smc_conn *c);

/* The peer's window now, for the statistics (a glance) */
static inline u32 smc_conn_tx_window(const struct smc_conn *c)
{
	u32 fold = READ_ONCE(c->tx_fold), ring = READ_ONCE(c->tx_ring);

	return fold ? smc_fold_window(ring, fold) : ring;
}

/* Our window as our reader last saw it, for the statistics (a glance) */
static inline u32 smc_conn_rx_window(const struct smc_conn *c)
{
	return READ_ONCE(c->rx_window) ?: READ_ONCE(c->rmb_ring);
}

void smc_tx_flush(struct smc_sock *smc);
void smc_send_conn_flags(struct smc_sock *smc, u8 flags);

/* What sock_diag shows of a connection's transport (smc_diag.ko) */
struct smc_conn_diag {
	u32			hdr;		/* before the peer ring's data */
	u32			peer_len;	/* the peer's ring as we see it */
	bool			sent_now;	/* a write is the peer's at once */
	bool			has_lgr;
	bool			has_dmb;
	struct smc_diag_lgrinfo	lgr;		/* SMC-R */
	struct smcd_diag_dmbinfo dmb;		/* SMC-D */
};

/*
 * What differs between SMC-D (smcd_conn.c) and SMC-R (smcr_conn.c)
 * below the data path.  A connection's ops are set once, when its
 * transport takes it, and stay after the transport lets it go: each
 * op copes with a connection whose transport state is gone.
 */
struct smc_conn_ops {
	/* reserve what the next message needs; may sleep; NULL: nothing */
	int	(*tx_prepare)(struct smc_sock *smc, bool killable);
	/* publish our cursors and flags to the peer; tx_lock held */
	void	(*tx_write)(struct smc_sock *smc);
	/* after tx_lock is dropped: ring the peer's doorbell; NULL: none */
	void	(*tx_done)(struct smc_sock *smc);
	/* the application released the socket; smc sock lock held */
	void	(*release)(struct smc_sock *smc);
	/* sock_diag's view, in atomic context; false: no state to show */
	bool	(*diag)(struct smc_sock *smc, struct smc_conn_diag *d,
			bool tokens);
	u8	stats_tech;	/* SMC_STATS_D or SMC_STATS_R */
	/* small writes may wait for the message in flight to complete */
	bool	autocork;
};

#endif /* _SMC_CONN_H */

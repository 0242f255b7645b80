/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared Memory Communications: the connection close state machine.
 *
 * Pure functions (no locking, no kernel objects), also built in user
 * space for unit tests.  A state moves on local actions (shutdown of
 * the send side, close) and on connection-state flags from the peer;
 * the caller serializes both and sends the flags a local action asks
 * for.  The states are the SMC_* socket states of smc_sock.h, which user
 * space sees through sock_diag.
 */
#ifndef __SMC_CLOSE_FSM_H
#define __SMC_CLOSE_FSM_H

#include "smc_cdc_wire.h"

/* the socket state numbers of sock_diag */
#define SMC_FSM_ACTIVE			1
#define SMC_FSM_INIT			2
#define SMC_FSM_CLOSED			7
#define SMC_FSM_PEERCLOSEWAIT1		20
#define SMC_FSM_PEERCLOSEWAIT2		21
#define SMC_FSM_APPCLOSEWAIT1		22
#define SMC_FSM_APPCLOSEWAIT2		23
#define SMC_FSM_APPFINCLOSEWAIT		24
#define SMC_FSM_PEERFINCLOSEWAIT	25
#define SMC_FSM_PEERABORTWAIT		26
#define SMC_FSM_PROCESSABORT		27

#define SMC_FSM_PEER_END	(SMC_CDC_CS_CLOSED | SMC_CDC_CS_ABORT)

/* A connection's close state: ours, what we sent, what the peer sent */
struct smc_close_fsm {
	u8	state;
	u8	sent;		/* SMC_CDC_CS_* flags we sent */
	u8	peer;		/* SMC_CDC_CS_* flags the peer sent */
};

/* We sent done-writing and nothing that ends the connection */
static inline bool smc_fsm_only_done_writing(const struct smc_close_fsm *f)
{
	return (f->sent & SMC_CDC_CS_DONE_WRITING) &&
	       !(f->sent & (SMC_CDC_CS_CLOSED | SMC_CDC_CS_ABORT));
}

/*
 * shutdown(SHUT_WR): returns the flags to send (0: none) and moves
 * the state.
 */
static inline u8 smc_fsm_shut_wr(struct smc_close_fsm *f)
{
	switch (f->state) {
	case SMC_FSM_ACTIVE:
		f->state = SMC_FSM_PEERCLOSEWAIT1;
		break;
	case SMC_FSM_APPCLOSEWAIT1:
		f->state = SMC_FSM_APPCLOSEWAIT2;
		break;
	default:
		return 0;
	}
	f->sent |= SMC_CDC_CS_DONE_WRITING;
	return SMC_CDC_CS_DONE_WRITING;
}

/*
 * close(): @abort when data is left unread or SO_LINGER {1, 0} asks
 * for it.  Returns the flags to send (0: none) and moves the state.
 */
static inline u8 smc_fsm_close(struct smc_close_fsm *f, bool abort)
{
	u8 end = abort ? SMC_CDC_CS_ABORT : SMC_CDC_CS_CLOSED;
	u8 send = 0;

	switch (f->state) {
	case SMC_FSM_ACTIVE:
		send = end;
		f->state = SMC_FSM_PEERCLOSEWAIT1;
		break;
	case SMC_FSM_APPCLOSEWAIT1:
	case SMC_FSM_APPCLOSEWAIT2:
		send = end;
		f->state = (f->peer & SMC_FSM_PEER_END) ?
			   SMC_FSM_CLOSED : SMC_FSM_PEERFINCLOSEWAIT;
		break;
	case SMC_FSM_APPFINCLOSEWAIT:
		if (smc_fsm_only_done_writing(f))
			send = end;
		f->state = SMC_FSM_CLOSED;
		break;
	case SMC_FSM_PEERCLOSEWAIT1:
	case SMC_FSM_PEERCLOSEWAIT2:
		if (smc_fsm_only_done_writing(f))
			send = end;
		break;
	case SMC_FSM_PROCESSABORT:
		send = SMC_CDC_CS_ABORT;
		f->state = SMC_FSM_CLOSED;
		break;
	case SMC_FSM_PEERABORTWAIT:
	case SMC_FSM_INIT:
		f->state = SMC_FSM_CLOSED;
		break;
	}
	f->sent |= send;
	return send;
}

/* After the peer's closed (or abort): the end of a wait for it */
static inline u8 smc_fsm_peer_end_state(const struct smc_close_fsm *f,
					bool released)
{
	if (released && (f->sent & (SMC_CDC_CS_CLOSED | SMC_CDC_CS_ABORT)))
		return SMC_FSM_CLOSED;
	return SMC_FSM_APPFINCLOSEWAIT;
}

/*
 * The peer's connection-state flags @flags arrived (cumulative or not):
 * record them and move the state.  @released: our socket is closed.
 */
static inline void smc_fsm_peer(struct smc_close_fsm *f, u8 flags,
				bool released)
{
	f->peer |= flags;
	if (flags & SMC_CDC_CS_ABORT) {
		switch (f->state) {
		case SMC_FSM_INIT:
		case SMC_FSM_ACTIVE:
		case SMC_FSM_APPCLOSEWAIT1:
		case SMC_FSM_APPFINCLOSEWAIT:
			f->state = SMC_FSM_PROCESSABORT;
			break;
		case SMC_FSM_PEERCLOSEWAIT1:
		case SMC_FSM_PEERCLOSEWAIT2:
			f->state = smc_fsm_only_done_writing(f) ?
				   SMC_FSM_PROCESSABORT : SMC_FSM_CLOSED;
			break;
		case SMC_FSM_APPCLOSEWAIT2:
		case SMC_FSM_PEERFINCLOSEWAIT:
		case SMC_FSM_PEERABORTWAIT:
			f->state = SMC_FSM_CLOSED;
			break;
		}
		return;
	}
	if (!(flags & (SMC_CDC_CS_CLOSED | SMC_CDC_CS_DONE_WRITING)))
		return;
	switch (f->state) {
	case SMC_FSM_INIT:
	case SMC_FSM_ACTIVE:
		f->state = SMC_FSM_APPCLOSEWAIT1;
		break;
	case SMC_FSM_PEERCLOSEWAIT1:
		if (flags & SMC_CDC_CS_DONE_WRITING)
			f->state = SMC_FSM_PEERCLOSEWAIT2;
		if (flags & SMC_CDC_CS_CLOSED)
			f->state = smc_fsm_peer_end_state(f, released);
		break;
	case SMC_FSM_PEERCLOSEWAIT2:
		if (flags & SMC_CDC_CS_CLOSED)
			f->state = smc_fsm_peer_end_state(f, released);
		break;
	case SMC_FSM_PEERFINCLOSEWAIT:
		if (flags & SMC_CDC_CS_CLOSED)
			f->state = SMC_FSM_CLOSED;
		break;
	}
}

#endif /* __SMC_CLOSE_FSM_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared Memory Communications: where the bytes of a loopback-ism ring
 * live, and how its window grows.
 *
 * A ring has @len offsets (what the cursors count), but its pages hold
 * only @fold bytes, a power of two: offset o lives at o & (fold - 1).
 * Any stretch of at most smc_fold_window() offsets lands on distinct
 * bytes, so that is what the sender may have in flight.  The window
 * grows by doubling the fold.  That moves no byte in flight as long as
 * every one of them sits where both folds agree (bit @fold of its
 * offset clear): the reader may go on with the old fold for those, and
 * takes the new one with the cursor that announces bytes written after.
 * Pure arithmetic, so that the host tests build it unchanged.
 */
#ifndef __SMC_RING_FOLD_H
#define __SMC_RING_FOLD_H

/*
 * The most offsets in a row that land on distinct bytes.  Walking the
 * ring, storage advances with the offset, but skips the bytes from
 * len & (fold - 1) to @fold where the offsets wrap: the window is what
 * is left of @fold.
 */
static inline u32 smc_fold_window(u32 len, u32 fold)
{
	if (fold >= len)
		return len;
	return (len & (fold - 1)) ? (len & (fold - 1)) : fold;
}

/* Of the @n offsets from @off (< @len) on, those side by side in storage */
static inline u32 smc_fold_run(u32 len, u32 fold, u32 off, u32 n)
{
	u32 k = fold - (off & (fold - 1));

	if (k > len - off)
		k = len - off;
	return n < k ? n : k;
}

/*
 * Do the @n bytes at offset @off sit where a fold of 2 * @fold puts
 * them too?  More than a window's worth is never in flight: no.
 */
static inline bool smc_fold_widen_ok(u32 len, u32 fold, u32 off, u32 n)
{
	u32 k;

	if (n > smc_fold_window(len, fold) || off >= len)
		return false;
	while (n) {
		k = smc_fold_run(len, fold, off, n);
		/* a run stays within one half of a 2 * @fold block */
		if (off & fold)
			return false;
		off += k;
		n -= k;
		if (off == len)
			off = 0;
	}
	return true;
}

/*
 * While the sender waits to widen: how much it may write at offset @off
 * and still leave every byte where both folds agree.  Past that bound
 * its bytes sit where the folds differ and would have to drain first;
 * when it gets there, all it has in flight is on the right side (a
 * window is less than @fold), and the fold doubles.  Bytes already
 * where the folds differ drain anyway: no bound while writing those.
 */
static inline u32 smc_fold_widen_room(u32 fold, u32 off)
{
	if (off & fold)
		return ~0U;
	return fold - (off & (fold - 1));
}

#endif /* __SMC_RING_FOLD_H */

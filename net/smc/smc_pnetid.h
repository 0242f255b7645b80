/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared Memory Communications: PNET IDs, the names that tie network
 * interfaces to the RDMA and ISM devices on the same physical network.
 * Pure, so that the host unit tests build it unchanged.
 */
#ifndef __SMC_PNETID_H
#define __SMC_PNETID_H

#ifdef __KERNEL__
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/types.h>
#endif

#define SMC_PNETID_LEN		16	/* without a terminating NUL */

static inline bool smc_pnetid_space(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

/*
 * The form a PNET ID is stored in: blanks around it removed, 1 to 16
 * letters and digits, upper case.  @out has room for 17 bytes.
 * Returns 0, or -EINVAL for anything else.
 */
static inline int smc_pnetid_normalize(const char *in, char *out)
{
	const char *end;
	int n = 0;

	while (smc_pnetid_space(*in))
		in++;
	end = in;
	while (*end)
		end++;
	while (end > in && smc_pnetid_space(end[-1]))
		end--;
	if (end == in || end - in > SMC_PNETID_LEN)
		return -EINVAL;
	for (; in < end; in++) {
		char c = *in;

		if (c >= 'a' && c <= 'z')
			c -= 'a' - 'A';
		else if (!(c >= 'A' && c <= 'Z') && !(c >= '0' && c <= '9'))
			return -EINVAL;
		out[n++] = c;
	}
	out[n] = 0;
	return 0;
}

/* Same PNET ID?  Compared up to 16 bytes, ending at a NUL or a blank */
static inline bool smc_pnetid_match(const char *a, const char *b)
{
	int i;

	for (i = 0; i < SMC_PNETID_LEN; i++) {
		bool ea = !a[i] || a[i] == ' ', eb = !b[i] || b[i] == ' ';

		if (ea || eb)
			return ea && eb;
		if (a[i] != b[i])
			return false;
	}
	return true;
}

/*
 * Give a device port (or device) whose PNET ID is @cur the PNET ID
 * @pnetid, unless it has another one already: 0, or -EEXIST.
 */
static inline int smc_pnetid_set(char *cur, const char *pnetid)
{
	int i;

	if (cur[0] && !smc_pnetid_match(cur, pnetid))
		return -EEXIST;
	for (i = 0; i < SMC_PNETID_LEN && pnetid[i]; i++)
		cur[i] = pnetid[i];
	cur[i] = 0;
	return 0;
}

/* Clear @cur if it is @pnetid, or whatever it is for a NULL @pnetid */
static inline void smc_pnetid_clear(char *cur, const char *pnetid)
{
	if (!pnetid || smc_pnetid_match(cur, pnetid))
		cur[0] = 0;
}

/*
 * Does a table entry for device @entry name the RDMA device @name, or
 * the one whose parent device (e.g. the PCI function) is @parent?
 */
static inline bool smc_pnetid_dev_named(const char *entry, const char *name,
					const char *parent)
{
	return !strcmp(entry, name) || (parent && !strcmp(entry, parent));
}

#endif /* __SMC_PNETID_H */

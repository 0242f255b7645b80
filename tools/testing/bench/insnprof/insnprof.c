// SPDX-License-Identifier: GPL-2.0
/*
 * A QEMU TCG plugin that counts the guest instructions each translated
 * block runs, between two marker instructions the guest executes
 * (insnmark.c): an exact, unsampled profile of a benchmark run that
 * costs the guest nothing, since in the deterministic mode guest time
 * is counted in guest instructions and the counters are host memory.
 *
 *   -plugin file=insnprof.so,out=PREFIX
 *
 * At the begin marker every counter goes to zero; at the end marker
 * PREFIX.N (N = 0, 1, ... in marker order) gets one line per block
 * that ran: "VADDR NINSNS COUNT" (hex, decimal, decimal), first a
 * "# total INSNS" line.  A block is attributed to its first address;
 * the report (insnprof-report) maps it to a kernel symbol.
 *
 * Counting is an inline add per block, not atomic: use it with one
 * vCPU thread (-accel tcg,thread=single), as the deterministic mode is.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qemu-plugin.h>

/* qemu_plugin_insn_data() returns a pointer in this version only */
#if QEMU_PLUGIN_VERSION != 1
#error "insnprof is written for plugin API version 1 (QEMU 7.2, Debian 12)"
#endif

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

/*
 * The markers: "nopl 0x534d43XX(%rax,%rax,1)", an 8-byte no-op no
 * compiler emits with this displacement ("SMC" and the marker's kind).
 */
#define MARK_LEN	8
static const uint8_t mark_prefix[] = { 0x0f, 0x1f, 0x84, 0x00 };
enum { MARK_BEGIN = 0x01, MARK_END = 0x02 };

struct block {
	uint64_t vaddr;
	uint64_t count;		/* bumped by the translated code itself */
	uint32_t ninsns;
};

/* Open addressing on (vaddr, ninsns); entries never move: the
 * translated code holds a pointer to their count.
 */
static struct block **table;
static size_t table_size, table_used;
static struct block **all;	/* every entry, for zeroing and dumping */
static size_t all_used, all_size;
static char *out_prefix;
static unsigned int phase;

static size_t slot_of(uint64_t vaddr, uint32_t ninsns)
{
	uint64_t h = (vaddr ^ ((uint64_t)ninsns << 48)) * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 20) & (table_size - 1);
}

static int table_grow(void)
{
	struct block **old = table;
	size_t i, old_size = table_size;

	table_size = old_size ? old_size * 2 : 1 << 16;
	table = calloc(table_size, sizeof(*table));
	if (!table)
		return -ENOMEM;
	for (i = 0; i < old_size; i++) {
		size_t s;

		if (!old[i])
			continue;
		s = slot_of(old[i]->vaddr, old[i]->ninsns);
		while (table[s])
			s = (s + 1) & (table_size - 1);
		table[s] = old[i];
	}
	free(old);
	return 0;
}

static struct block *block_get(uint64_t vaddr, uint32_t ninsns)
{
	struct block *b;
	size_t s;

	if ((table_used + 1) * 2 > table_size && table_grow())
		return NULL;
	s = slot_of(vaddr, ninsns);
	for (; table[s]; s = (s + 1) & (table_size - 1))
		if (table[s]->vaddr == vaddr && table[s]->ninsns == ninsns)
			return table[s];
	if (all_used == all_size) {
		size_t n = all_size ? all_size * 2 : 1 << 16;
		struct block **a = realloc(all, n * sizeof(*a));

		if (!a)
			return NULL;
		all = a;
		all_size = n;
	}
	b = calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	b->vaddr = vaddr;
	b->ninsns = ninsns;
	table[s] = b;
	table_used++;
	all[all_used++] = b;
	return b;
}

static void on_begin(unsigned int vcpu, void *udata)
{
	size_t i;

	for (i = 0; i < all_used; i++)
		all[i]->count = 0;
}

static void on_end(unsigned int vcpu, void *udata)
{
	uint64_t total = 0;
	char path[4096];
	size_t i;
	FILE *f;

	snprintf(path, sizeof(path), "%s.%u", out_prefix, phase++);
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "insnprof: %s: %s\n", path, strerror(errno));
		return;
	}
	for (i = 0; i < all_used; i++)
		total += all[i]->count * all[i]->ninsns;
	fprintf(f, "# total %llu\n", (unsigned long long)total);
	for (i = 0; i < all_used; i++)
		if (all[i]->count)
			fprintf(f, "%llx %u %llu\n",
				(unsigned long long)all[i]->vaddr,
				all[i]->ninsns,
				(unsigned long long)all[i]->count);
	fclose(f);
}

/* MARK_BEGIN or MARK_END if INSN is one of the markers, else 0 */
static int marker_of(struct qemu_plugin_insn *insn)
{
	const uint8_t *d;

	if (qemu_plugin_insn_size(insn) != MARK_LEN)
		return 0;
	d = qemu_plugin_insn_data(insn);
	if (memcmp(d, mark_prefix, sizeof(mark_prefix)) ||
	    d[5] != 0x43 || d[6] != 0x4d || d[7] != 0x53)
		return 0;
	return d[4] == MARK_BEGIN || d[4] == MARK_END ? d[4] : 0;
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	enum qemu_plugin_op add = QEMU_PLUGIN_INLINE_ADD_U64;
	enum qemu_plugin_cb_flags regs = QEMU_PLUGIN_CB_NO_REGS;
	size_t i, n = qemu_plugin_tb_n_insns(tb);
	struct block *b;

	b = block_get(qemu_plugin_tb_vaddr(tb), n);
	if (b)
		qemu_plugin_register_vcpu_tb_exec_inline(tb, add, &b->count, 1);
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

		switch (marker_of(insn)) {
		case MARK_BEGIN:
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_begin,
							       regs, NULL);
			break;
		case MARK_END:
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_end,
							       regs, NULL);
			break;
		}
	}
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++)
		if (!strncmp(argv[i], "out=", 4))
			out_prefix = strdup(argv[i] + 4);
	if (!out_prefix) {
		fprintf(stderr, "insnprof: needs out=PREFIX\n");
		return -1;
	}
	if (table_grow())
		return -1;
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	return 0;
}

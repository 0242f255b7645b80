// SPDX-License-Identifier: GPL-2.0
/*
 * smc_run_bpf - run a command with its TCP sockets made SMC by BPF
 *
 * A program on update_socket_protocol() (smc_run.bpf.c) asks for
 * IPPROTO_SMC instead of TCP in the socket() calls of the tasks of one
 * cgroup.  Unlike the preload library it reaches every program, statically
 * linked ones too, and every process of a container; it needs a kernel
 * with that hook and IPPROTO_SMC (6.11 and later) and CAP_BPF with
 * CAP_PERFMON, or CAP_SYS_ADMIN.  See usage() for the ways to run it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/capability.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include "smc_run_bpf.h"
#include "smc_size.h"

bool smc_debug;

struct smc_opts {
	int rcvbuf;
	int sndbuf;
	const char *cgroup;	/* -c */
	const char *pin;	/* -p */
	const char *unpin;	/* -u */
	const char *preload;	/* -F */
	bool probe;		/* -P */
	char **cmd;
};

static const char usage_text[] =
	"Usage: %1$s [-d] [-r SIZE] [-t SIZE] [-F LIB] COMMAND [ARGS...]\n"
	"       %1$s [-d] [-r SIZE] [-t SIZE] -c CGROUP COMMAND [ARGS...]\n"
	"       %1$s [-d] [-r SIZE] [-t SIZE] -c CGROUP -p DIR\n"
	"       %1$s [-d] -u DIR\n"
	"       %1$s [-d] -P\n"
	"\n"
	"Make the TCP sockets of processes SMC (IPPROTO_SMC) through a BPF\n"
	"program on socket(): statically linked programs too.\n"
	"\n"
	"  COMMAND    run it in a new cgroup, below the caller's; the\n"
	"             programs are detached and the cgroup removed once\n"
	"             the command and every process it started are gone\n"
	"  -c CGROUP  for an existing cgroup v2 (a container's, a\n"
	"             service's) and everything below it, while COMMAND\n"
	"             runs; COMMAND itself stays where it is\n"
	"  -p DIR     with -c and no COMMAND: pin the attachment in DIR,\n"
	"             a new directory on a bpffs, and return; it lasts\n"
	"             until -u DIR, even when the container is gone\n"
	"  -u DIR     remove the pins of -p DIR: detaches the programs\n"
	"  -P         probe: exit 0 when this kernel and user can do it\n"
	"  -r SIZE    SO_RCVBUF of each SMC socket (k/m suffix allowed)\n"
	"  -t SIZE    SO_SNDBUF of each SMC socket; -r and -t need the\n"
	"             BPF LSM to be active\n"
	"  -F LIB     where the BPF way cannot be set up, run COMMAND\n"
	"             with LIB preloaded instead (smc_run's fallback)\n"
	"  -d         say what was done, on stderr\n"
	"  -h         show this help\n";

static void usage(FILE *f)
{
	fprintf(f, usage_text, program_invocation_short_name);
}

static void smc_vmsg(const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", program_invocation_short_name);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void smc_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	smc_vmsg(fmt, ap);
	va_end(ap);
}

void smc_dbg(const char *fmt, ...)
{
	va_list ap;

	if (!smc_debug)
		return;
	va_start(ap, fmt);
	smc_vmsg(fmt, ap);
	va_end(ap);
}

/* CAP_SYS_ADMIN, or CAP_BPF with CAP_PERFMON (a tracing program) */
static bool smc_capable(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];
	unsigned long long eff;

	if (syscall(SYS_capget, &hdr, data))
		return true;	/* let the kernel answer */
	eff = data[0].effective | (unsigned long long)data[1].effective << 32;
	if (eff & (1ULL << CAP_SYS_ADMIN))
		return true;
	return (eff & (1ULL << CAP_BPF)) && (eff & (1ULL << CAP_PERFMON));
}

static int smc_proto_check(void)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, SMC_IPPROTO_SMC);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* What the kernel makes of SO_RCVBUF/SO_SNDBUF VAL under net.core.MAX */
static int smc_buf_want(int val, const char *max)
{
	char path[64];
	long limit;
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "/proc/sys/net/core/%s", max);
	f = fopen(path, "re");
	if (!f)
		return 0;
	n = fscanf(f, "%ld", &limit);
	fclose(f);
	if (n != 1 || limit <= 0)
		return 0;
	/* as sock_setsockopt(): min(val, max), at most INT_MAX / 2, doubled */
	if (limit > val)
		limit = val;
	if (limit > INT_MAX / 2)
		limit = INT_MAX / 2;
	return (int)(2 * limit);
}

/*
 * A socket made in the cgroup, as the command will make them: it must be
 * IPPROTO_SMC, with the buffer sizes asked for.  Sizes below 4 KiB are
 * not compared: the kernel's minimum takes over there.
 */
static int smc_self_check(const struct smc_opts *o, char *why, size_t len)
{
	static const struct {
		int opt;
		const char *name;
		const char *max;
	} bufs[] = {
		{ SO_RCVBUF, "SO_RCVBUF", "rmem_max" },
		{ SO_SNDBUF, "SO_SNDBUF", "wmem_max" },
	};
	int fd, val = -1, want, size, rc = -1;
	socklen_t sl = sizeof(val);
	unsigned int i;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(why, len, "a TCP socket in the cgroup: %s",
			 strerror(errno));
		return -1;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &val, &sl) ||
	    val != SMC_IPPROTO_SMC) {
		snprintf(why, len, "a TCP socket in the cgroup got protocol %d",
			 val);
		goto out;
	}
	for (i = 0; i < ARRAY_SIZE(bufs); i++) {
		size = bufs[i].opt == SO_RCVBUF ? o->rcvbuf : o->sndbuf;
		want = size >= 4096 ? smc_buf_want(size, bufs[i].max) : 0;
		sl = sizeof(val);
		if (!want || getsockopt(fd, SOL_SOCKET, bufs[i].opt, &val, &sl))
			continue;
		if (val != want) {
			snprintf(why, len,
				 "%s is %d, not %d: is the BPF LSM active?",
				 bufs[i].name, val, want);
			goto out;
		}
	}
	rc = 0;
out:
	close(fd);
	return rc;
}

static int smc_open_cgroup(struct smc_cg *cg, const char *path, char *why,
			   size_t len)
{
	int err;

	smc_cg_init(cg);
	err = smc_cg_open(cg, path);
	if (err)
		snprintf(why, len, "%.256s: %s", path, err == -ENOTDIR ?
			 "not a cgroup v2 directory" : strerror(-err));
	return err;
}

static int smc_load_attach(struct smc_bpf *b, const struct smc_opts *o,
			   int cg_fd, char *why, size_t len)
{
	int err;

	err = smc_bpf_load(b, o->rcvbuf, o->sndbuf);
	if (err) {
		snprintf(why, len, "cannot load the BPF programs: %s",
			 strerror(-err));
		smc_bpf_close(b);
		return err;
	}
	err = smc_bpf_attach(b, cg_fd);
	if (err) {
		snprintf(why, len, "cannot attach the BPF programs: %s",
			 strerror(-err));
		smc_bpf_close(b);
	}
	return err;
}

/* Start the keeper of @b's links: its pid, or a negative error in @why */
static pid_t smc_keeper(struct smc_keep *k, struct smc_bpf *b, char *why,
			size_t len)
{
	pid_t keeper;

	k->nfds = smc_bpf_link_fds(b, k->fds, ARRAY_SIZE(k->fds));
	keeper = smc_keep_start(k);
	if (keeper < 0)
		snprintf(why, len, "cannot start the keeper: %s",
			 strerror(-keeper));
	return keeper;
}

/* COMMAND, with the programs of @b on cgroup @cg kept by @keeper */
static void __noreturn smc_exec(const struct smc_opts *o, struct smc_bpf *b,
				const char *cg, pid_t keeper)
{
	char desc[128];

	smc_bpf_describe(b, desc, sizeof(desc));
	smc_dbg("bpf: cgroup=%s %s keeper=%d", cg, desc, keeper);
	execvp(o->cmd[0], o->cmd);
	smc_err("%s: %s", o->cmd[0], strerror(errno));
	exit(127);
}

/*
 * -r and -t act through the BPF LSM: where the kernel's list of active
 * LSMs lacks it, they would do nothing.  A list that cannot be read
 * (no securityfs) is not held against the caller.
 */
static int smc_lsm_check(const struct smc_opts *o, char *why, size_t len)
{
	char lsms[256] = "", *tok, *save;
	size_t n;
	FILE *f;

	if (!o->rcvbuf && !o->sndbuf)
		return 0;
	f = fopen("/sys/kernel/security/lsm", "re");
	if (!f)
		return 0;
	n = fread(lsms, 1, sizeof(lsms) - 1, f);
	fclose(f);
	lsms[n] = '\0';
	for (tok = strtok_r(lsms, ",\n", &save); tok;
	     tok = strtok_r(NULL, ",\n", &save))
		if (!strcmp(tok, "bpf"))
			return 0;
	snprintf(why, len, "-r and -t need the BPF LSM, which is not active "
		 "(add bpf to the kernel's lsm= parameter)");
	return -EOPNOTSUPP;
}

/*
 * COMMAND in a new cgroup.  Returns only on failure, with *fatal set when
 * the loader could not leave the cgroup again (no fallback then).
 */
static int smc_run_fresh(const struct smc_opts *o, char *why, size_t len,
			 bool *fatal)
{
	struct smc_keep k = { .cg_fd = -1, .parent_fd = -1, .pidfd = -1 };
	struct smc_bpf b;
	struct smc_cg cg;
	pid_t keeper;
	int err;

	smc_cg_init(&cg);
	err = smc_cg_make(&cg);
	if (err) {
		snprintf(why, len, "cannot make cgroup %.256s: %s",
			 cg.path[0] ? cg.path : "below the caller's",
			 strerror(-err));
		smc_cg_close(&cg);
		return err;
	}
	err = smc_load_attach(&b, o, cg.fd, why, len);
	if (err)
		goto out_cg;
	k.cg_fd = cg.fd;
	k.parent_fd = cg.parent_fd;
	k.name = cg.name;
	keeper = smc_keeper(&k, &b, why, len);
	if (keeper < 0) {
		err = keeper;
		goto out;
	}
	/* the keeper cleans up from here on, once the cgroup is empty */
	err = smc_cg_enter(cg.fd);
	if (err) {
		snprintf(why, len, "cannot enter %.256s: %s", cg.path,
			 strerror(-err));
		return err;
	}
	if (smc_self_check(o, why, len)) {
		*fatal = smc_cg_enter(cg.orig_fd) != 0;
		return -EPROTO;
	}
	smc_exec(o, &b, cg.path, keeper);
out:
	smc_bpf_close(&b);
out_cg:
	smc_cg_remove(cg.parent_fd, cg.name, cg.fd);
	smc_cg_close(&cg);
	return err;
}

/*
 * -c CGROUP: the programs of @b loaded and attached for the cgroup @cg
 * opens.  On failure both are closed again.
 */
static int smc_attach_cgroup(const struct smc_opts *o, struct smc_cg *cg,
			     struct smc_bpf *b, char *why, size_t len)
{
	int err;

	smc_cg_init(cg);
	err = smc_lsm_check(o, why, len);
	if (!err)
		err = smc_open_cgroup(cg, o->cgroup, why, len);
	if (!err)
		err = smc_load_attach(b, o, cg->fd, why, len);
	if (err)
		smc_cg_close(cg);
	return err;
}

/* -c CGROUP COMMAND: COMMAND stays in its cgroup; returns on failure */
static int smc_run_for(const struct smc_opts *o, char *why, size_t len)
{
	struct smc_keep k = { .cg_fd = -1, .parent_fd = -1 };
	struct smc_bpf b;
	struct smc_cg cg;
	pid_t keeper;
	int err;

	err = smc_attach_cgroup(o, &cg, &b, why, len);
	if (err)
		return err;
	/* the keeper waits for this process, which becomes COMMAND */
	k.pidfd = syscall(SYS_pidfd_open, getpid(), 0);
	if (k.pidfd < 0) {
		err = -errno;
		snprintf(why, len, "pidfd_open: %s", strerror(errno));
		goto out;
	}
	keeper = smc_keeper(&k, &b, why, len);
	if (keeper < 0) {
		err = keeper;
		goto out;
	}
	smc_exec(o, &b, cg.path, keeper);
out:
	smc_bpf_close(&b);
	smc_cg_close(&cg);
	return err;
}

/* -c CGROUP -p DIR */
static int smc_pin(const struct smc_opts *o, char *why, size_t len)
{
	char desc[128];
	struct smc_bpf b;
	const char *name = strrchr(o->pin, '/');
	struct smc_cg cg;
	int err;

	/* bpffs keeps names with a dot for itself: mkdir fails with EPERM */
	if (strchr(name ? name + 1 : o->pin, '.')) {
		snprintf(why, len, "cannot pin in %.256s: %s", o->pin,
			 "a name on bpffs takes no '.'");
		return -EINVAL;
	}
	err = smc_attach_cgroup(o, &cg, &b, why, len);
	if (err)
		return err;
	err = smc_bpf_pin(&b, o->pin);
	if (err) {
		snprintf(why, len, "cannot pin in %.256s: %s", o->pin,
			 err == -ENOTDIR ? "not on a bpffs" : strerror(-err));
		goto out;
	}
	smc_bpf_describe(&b, desc, sizeof(desc));
	smc_dbg("bpf: cgroup=%s %s pinned=%s", cg.path, desc, o->pin);
out:
	/* pinned, the links outlive their fds */
	smc_bpf_close(&b);
	smc_cg_close(&cg);
	return err;
}

/* -P: this kernel takes the program, and IPPROTO_SMC sockets exist */
/* What the BPF way needs before anything is loaded: 0, or why not */
static int smc_precheck(char *why, size_t len)
{
	int err;

	if (!smc_capable()) {
		snprintf(why, len,
			 "needs CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN");
		return -EPERM;
	}
	err = smc_proto_check();
	if (err)
		snprintf(why, len, "IPPROTO_SMC sockets: %s", strerror(-err));
	return err;
}

static int smc_probe(void)
{
	struct smc_opts o = { 0 };
	char why[256] = "";
	struct smc_bpf b;
	int err;

	err = smc_precheck(why, sizeof(why));
	if (!err) {
		err = smc_load_attach(&b, &o, -1, why, sizeof(why));
		if (!err)
			smc_bpf_close(&b);
	}
	if (err) {
		printf("%s: no: %s\n", program_invocation_short_name, why);
		return 1;
	}
	printf("%s: yes\n", program_invocation_short_name);
	return 0;
}

static int smc_parse(int argc, char **argv, struct smc_opts *o)
{
	int opt;

	while ((opt = getopt(argc, argv, "+c:dF:hp:Pr:t:u:")) != -1) {
		switch (opt) {
		case 'c':
			o->cgroup = optarg;
			break;
		case 'd':
			smc_debug = true;
			break;
		case 'F':
			o->preload = optarg;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case 'p':
			o->pin = optarg;
			break;
		case 'P':
			o->probe = true;
			break;
		case 'r':
		case 't':
			if (smc_parse_size(optarg, opt == 'r' ? &o->rcvbuf :
					   &o->sndbuf)) {
				smc_err("invalid size '%s'", optarg);
				return -1;
			}
			break;
		case 'u':
			o->unpin = optarg;
			break;
		default:
			usage(stderr);
			return -1;
		}
	}
	o->cmd = optind < argc ? argv + optind : NULL;
	if (o->probe || o->unpin)
		return 0;
	if (o->pin && (!o->cgroup || o->cmd)) {
		smc_err("-p needs -c CGROUP and no COMMAND");
		return -1;
	}
	if (!o->pin && !o->cmd) {
		usage(stderr);
		return -1;
	}
	if (o->preload && o->cgroup) {
		smc_err("-F is for a COMMAND of its own cgroup, not with -c");
		return -1;
	}
	return 0;
}

/* smc_run's fallback: COMMAND with LIB added to LD_PRELOAD */
static void __noreturn smc_run_preload(const struct smc_opts *o)
{
	const char *old = getenv("LD_PRELOAD");
	char *val;

	if (old && *old) {
		if (asprintf(&val, "%s:%s", old, o->preload) < 0)
			exit(127);
		setenv("LD_PRELOAD", val, 1);
	} else {
		setenv("LD_PRELOAD", o->preload, 1);
	}
	execvp(o->cmd[0], o->cmd);
	smc_err("%s: %s", o->cmd[0], strerror(errno));
	exit(127);
}

/*
 * Fill closed fds 0-2: a kept fd (pipe, cgroup, pidfd) that lands there
 * would be replaced by /dev/null in the keeper, which then detaches early.
 */
static void smc_stdio_open(void)
{
	int fd;

	do {
		fd = open("/dev/null", O_RDWR);
	} while (fd >= 0 && fd <= STDERR_FILENO);
	if (fd > STDERR_FILENO)
		close(fd);
}

int main(int argc, char **argv)
{
	struct smc_opts o = { 0 };
	bool fatal = false;
	char why[512] = "";
	int err;

	smc_stdio_open();
	if (smc_parse(argc, argv, &o))
		return 2;
	if (o.probe)
		return smc_probe();
	if (o.unpin) {
		err = smc_bpf_unpin(o.unpin);
		if (err)
			smc_err("cannot unpin %s: %s", o.unpin,
				err == -ENOTDIR ? "not on a bpffs" :
				err == -EINVAL ? "not an attachment of ours" :
				strerror(-err));
		return err ? 1 : 0;
	}

	err = smc_precheck(why, sizeof(why));
	if (!err) {
		if (o.pin)
			err = smc_pin(&o, why, sizeof(why));
		else if (o.cgroup)
			err = smc_run_for(&o, why, sizeof(why));
		else
			err = smc_run_fresh(&o, why, sizeof(why), &fatal);
	}
	if (!err)
		return 0;
	if (o.preload && !fatal) {
		smc_dbg("preload: %s", why);
		smc_run_preload(&o);
	}
	smc_err("%s", why);
	return 1;
}

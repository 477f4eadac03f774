// SPDX-License-Identifier: GPL-2.0
/*
 * Process events connector: the subscription ack, one event of each kind
 * (its fields, and its stamp inside the window of the system call that
 * caused it), causal order, stamp deltas, and per-cpu order and uniqueness
 * of timestamp_ns under fork/exec load. Each check is reported as soon as
 * it is decided: the ack, event kind and delta checks before the load.
 *
 * timestamp_ns is unique and in seq order on each cpu since
 * "connector/cn_proc: Stamp events in seq order", which stamps each message
 * where send_msg() assigns its seq, in the domain proc_event_stamps. A
 * kernel without it (a stable kernel, or one with ktime_stamp_ns() alone)
 * keeps that order only when no run catches the race, so a run there would
 * pass or fail by chance: the checks of that order (ack_order, load_order,
 * load_unique) are decided only when /proc/kallsyms lists proc_event_stamps
 * (CONFIG_KALLSYMS_ALL), and are skipped otherwise, their figures still
 * printed; -a decides them on any kernel. The other checks hold on any
 * kernel.
 *
 * The connector serves the initial network namespace only, and ignores a
 * subscription from another pid or user namespace: there the test skips
 * and says which.
 *
 * The test leaves nothing behind: it unsubscribes on every exit, and its
 * children die with it.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <linux/cn_proc.h>

#include "../kselftest.h"	/* errno.h, stdio.h, stdlib.h, unistd.h */
#include "event_check.h"

/* A 32-bit listener reads the same layout as a 64-bit one */
static_assert(sizeof(struct proc_event) == 40, "proc_event size");
static_assert(offsetof(struct proc_event, timestamp_ns) == 8, "timestamp");
static_assert(offsetof(struct proc_event, event_data) == 16, "event_data");
static_assert(sizeof(struct cn_msg) == 20, "cn_msg size");

#define REQ_SEQ		1234
#define REQ_ACK		5678
#define ACK_WAIT_MS	5000
#define POLL_MS		100
#define RCVBUF		(64 << 20)
#define TEST_UID	4242
#define TEST_GID	4343
#define COV_COMM	"cn-cov"
#define NR_TESTS	18
#define NSEC_PER_MSEC	1000000ULL
#define NSEC_PER_SEC	1000000000ULL
#define PROBES		32
#define PROBE_BURST	64
#define DEF_WORKERS	4
#define DEF_EVENTS	20000
#define DEF_SECONDS	25
/*
 * The fixed inode numbers of the initial pid and user namespaces in
 * /proc/PID/ns/. Newer <linux/nsfs.h> names them (PID_NS_INIT_INO,
 * USER_NS_INIT_INO; not 6.12's or 6.1's), in an enum, which no #ifndef
 * can test: the test is built against those older uapi headers too.
 */
#define INIT_PID_NS_INO		0xEFFFFFFCU
#define INIT_USER_NS_INO	0xEFFFFFFDU

/* ec_stamps_in_order() of /proc/kallsyms, or 1 with -a; why not decided */
static int in_order;
static const char *order_why;

/* Yama's ptrace_scope 3: no process may attach, the ptrace checks skip */
static bool no_ptrace;

static struct {			/* every message received, in order */
	int sock;
	pid_t listener;		/* the process that subscribed */
	int subscribed;		/* until PROC_CN_MCAST_IGNORE is sent */
	struct ec_event *ev;
	size_t n, cap;
	unsigned long long enobufs;
} rec;

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/* poll() takes no time_t: a 32-bit listener needs no COMPAT_32BIT_TIME */
static void sleep_ms(int ms)
{
	unsigned long long end = now_ns() + ms * NSEC_PER_MSEC, t;

	while ((t = now_ns()) < end)
		poll(NULL, 0, (end - t) / NSEC_PER_MSEC + 1);
}

static void *shared(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		ksft_exit_fail_msg("out of memory\n");
	return p;
}

/* One message, the payload only 4-byte aligned */
static void record(const struct cn_msg *cn, unsigned long long rx)
{
	struct proc_event pe;
	const __typeof__(pe.event_data) *d = &pe.event_data;
	struct ec_event *e;

	if (cn->id.idx != CN_IDX_PROC || cn->id.val != CN_VAL_PROC)
		return;
	if (rec.n == rec.cap) {
		rec.cap = rec.cap ? 2 * rec.cap : 65536;
		rec.ev = realloc(rec.ev, rec.cap * sizeof(*rec.ev));
		if (!rec.ev)
			ksft_exit_fail_msg("out of memory\n");
	}
	memcpy(&pe, cn->data, sizeof(pe));
	e = &rec.ev[rec.n++];
	/* all kinds but fork and ack start with process_pid and process_tgid */
	*e = (struct ec_event){
		.seq = cn->seq, .ack = cn->ack, .cpu = pe.cpu, .what = pe.what,
		.ts = pe.timestamp_ns, .rx = rx,
		.pid = d->exec.process_pid, .tgid = d->exec.process_tgid,
	};
	switch (e->what) {
	case PROC_EVENT_NONE:
		e->err = d->ack.err;
		break;
	case PROC_EVENT_FORK:
		e->pid = d->fork.child_pid;
		e->tgid = d->fork.child_tgid;
		e->ppid = d->fork.parent_pid;
		e->ptgid = d->fork.parent_tgid;
		break;
	case PROC_EVENT_UID:
	case PROC_EVENT_GID:
		e->id_r = d->id.r.ruid;
		e->id_e = d->id.e.euid;
		break;
	case PROC_EVENT_PTRACE:
		e->ppid = d->ptrace.tracer_pid;
		e->ptgid = d->ptrace.tracer_tgid;
		break;
	case PROC_EVENT_COMM:
		memcpy(e->comm, d->comm.comm, sizeof(e->comm) - 1);
		break;
	case PROC_EVENT_COREDUMP:
		e->ppid = d->coredump.parent_pid;
		e->ptgid = d->coredump.parent_tgid;
		break;
	case PROC_EVENT_EXIT:
		e->ppid = d->exit.parent_pid;
		e->ptgid = d->exit.parent_tgid;
		e->exit_code = d->exit.exit_code;
		e->exit_signal = d->exit.exit_signal;
		break;
	}
}

/* Wait up to ms for a message, then record what is queued */
static void rec_poll(int ms)
{
	struct pollfd pfd = { .fd = rec.sock, .events = POLLIN };
	union {
		char buf[8192];
		struct nlmsghdr nlh;
	} u;
	const size_t min = NLMSG_LENGTH(sizeof(struct cn_msg) +
					sizeof(struct proc_event));
	struct nlmsghdr *nlh;
	unsigned long long rx;
	ssize_t len;

	poll(&pfd, 1, ms);
	for (;;) {
		len = recv(rec.sock, u.buf, sizeof(u.buf), MSG_DONTWAIT);
		rx = now_ns();
		if (len < 0 && errno == ENOBUFS)
			rec.enobufs++;	/* overrun, messages were dropped */
		else if (len < 0 && errno == EAGAIN)
			return;
		else if (len < 0 && errno != EINTR)
			ksft_exit_fail_msg("recv: %s\n", strerror(errno));
		for (nlh = &u.nlh; NLMSG_OK(nlh, len);
		     nlh = NLMSG_NEXT(nlh, len))
			if (nlh->nlmsg_type == NLMSG_DONE &&
			    nlh->nlmsg_len >= min)
				record(NLMSG_DATA(nlh), rx);
	}
}

/*
 * Not in the initial namespace of /proc/self/ns/NAME (known by its fixed
 * inode); absent: in it
 */
static bool outside(const char *name, unsigned long ino)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/self/ns/%s", name);
	return !stat(path, &st) && st.st_ino != ino;
}

static const char not_init[] = "other than the initial one";
static const char ignored[] = "whose subscriptions the connector ignores";

/*
 * cn_proc_mcast_ctl() ignores a request from a non-initial user or pid
 * namespace
 */
static void check_namespaces(void)
{
	struct stat st;

	if (outside("user", INIT_USER_NS_INO))
		ksft_exit_skip("in a user namespace %s, %s\n",
			       not_init, ignored);
	if (outside("pid", INIT_PID_NS_INO))
		ksft_exit_skip("in a pid namespace %s, %s\n",
			       not_init, ignored);
	/*
	 * unshare -p without -f: events would name the children by pids that
	 * fork() did not return. Until its first process the new namespace
	 * has no pid_for_children.
	 */
	if (outside("pid_for_children", INIT_PID_NS_INO) ||
	    (!stat("/proc/self/ns/pid", &st) &&
	     stat("/proc/self/ns/pid_for_children", &st)))
		ksft_exit_skip("children in a pid namespace %s, %s\n",
			       not_init, "whose pids events do not carry");
}

/* A message of the ack's cpu after the ack is recorded */
static bool ack_followed(const struct ec_event *ack)
{
	size_t i;

	for (i = ack - rec.ev + 1; i < rec.n; i++)
		if (rec.ev[i].cpu == ack->cpu)
			return true;
	return false;
}

static size_t find_ack(void)
{
	size_t i;

	for (i = 0; i < rec.n; i++)
		if (rec.ev[i].what == PROC_EVENT_NONE &&
		    rec.ev[i].ack == REQ_ACK + 1)
			return i;
	return rec.n;
}

/*
 * A PROC_CN_MCAST_LISTEN or _IGNORE request. The buffer, not a struct
 * with struct cn_msg inside, as cn_msg ends in a flexible array.
 */
static int send_op(enum proc_cn_mcast_op op, __u32 ack)
{
	union {
		char buf[NLMSG_SPACE(sizeof(struct cn_msg) + sizeof(__u32))];
		struct nlmsghdr nlh;
	} req = { 0 };
	struct cn_msg *cn = NLMSG_DATA(&req.nlh);
	__u32 mc_op = op;

	req.nlh.nlmsg_len = NLMSG_LENGTH(sizeof(*cn) + sizeof(mc_op));
	req.nlh.nlmsg_type = NLMSG_DONE;
	cn->id.idx = CN_IDX_PROC;
	cn->id.val = CN_VAL_PROC;
	cn->seq = REQ_SEQ;
	cn->ack = ack;
	cn->len = sizeof(mc_op);
	memcpy(cn->data, &mc_op, sizeof(mc_op));
	return send(rec.sock, &req, req.nlh.nlmsg_len, 0);
}

/*
 * The connector counts listeners by their requests alone: closing the
 * socket leaves the count up, and the events built for no one, for the
 * life of the system. Send PROC_CN_MCAST_IGNORE once (6.1 drops the count
 * on every one), from the process that subscribed, not from a child that
 * shares its socket. Only send() and getpid(): safe in a signal handler.
 */
static int unsubscribe(void)
{
	if (getpid() != rec.listener ||
	    !__atomic_exchange_n(&rec.subscribed, 0, __ATOMIC_SEQ_CST))
		return 0;
	return send_op(PROC_CN_MCAST_IGNORE, 0);
}

/* Every exit() after subscribing, ksft_exit_*() included */
static void unsubscribe_at_exit(void)
{
	if (unsubscribe() < 0)
		ksft_print_msg("PROC_CN_MCAST_IGNORE: %s\n", strerror(errno));
}

/* The kselftest runner's timeout (SIGTERM), or an interrupt */
static void unsubscribe_on_signal(int sig)
{
	int saved_errno = errno;

	unsubscribe();
	signal(sig, SIG_DFL);
	raise(sig);
	errno = saved_errno;
}

static void subscribe(void)
{
	struct sockaddr_nl sa = {
		.nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC,
	};
	unsigned long long end;
	int size = RCVBUF;

	rec.sock = socket(PF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC,
			  NETLINK_CONNECTOR);
	if (rec.sock < 0 && errno == EPROTONOSUPPORT)
		ksft_exit_skip("no NETLINK_CONNECTOR\n");
	if (rec.sock < 0 || bind(rec.sock, (struct sockaddr *)&sa, sizeof(sa)))
		ksft_exit_fail_msg("netlink socket: %s\n", strerror(errno));
	/* under emulation the load can outpace the listener for a while */
	if (setsockopt(rec.sock, SOL_SOCKET, SO_RCVBUFFORCE, &size,
		       sizeof(size)))
		setsockopt(rec.sock, SOL_SOCKET, SO_RCVBUF, &size,
			   sizeof(size));
	rec.listener = getpid();
	if (atexit(unsubscribe_at_exit))
		ksft_exit_fail_msg("atexit: cannot unsubscribe at exit\n");
	signal(SIGINT, unsubscribe_on_signal);
	signal(SIGTERM, unsubscribe_on_signal);
	if (send_op(PROC_CN_MCAST_LISTEN, REQ_ACK) < 0) {
		const char *why = strerror(errno);

		/*
		 * the connector's kernel socket is in the initial network
		 * namespace only
		 */
		if (errno == ECONNREFUSED)
			ksft_exit_skip("in a %s %s, %s (%s: %s)\n",
				       "network namespace", not_init,
				       "where the connector is not",
				       "PROC_CN_MCAST_LISTEN", why);
		ksft_exit_fail_msg("PROC_CN_MCAST_LISTEN: %s\n", why);
	}
	/* the kernel has handled the request when send() returns */
	__atomic_store_n(&rec.subscribed, 1, __ATOMIC_SEQ_CST);
	/* acks go to every listener: ours carries our ack + 1 */
	end = now_ns() + ACK_WAIT_MS * NSEC_PER_MSEC;
	while (now_ns() < end) {
		rec_poll(POLL_MS);
		if (find_ack() < rec.n)
			return;
	}
	ksft_exit_skip("no ack (CONFIG_PROC_EVENTS=n?)\n");
}

/*
 * Coverage: a scripted child causes one event of each kind, recording the
 * CLOCK_MONOTONIC window around each system call in shared memory.
 */
enum step_id {
	ST_FORK, ST_EXEC, ST_UID, ST_GID, ST_SID, ST_ATTACH, ST_DETACH,
	ST_COMM, ST_CORE, ST_MARK_A, ST_MARK_B, ST_MARK_C, NR_STEPS
};

static struct script {
	int child;
	struct step {
		int pid;	/* whose event it causes */
		int err;
		unsigned long long before, after;
	} st[NR_STEPS];
} *script;

#define TIMED(i, call) do {					\
	struct step *_st = &script->st[i];			\
								\
	_st->before = now_ns();					\
	_st->err = (call) < 0 ? errno : 0;			\
	_st->after = now_ns();					\
} while (0)

static bool child_of(const struct ec_event *e, int parent)
{
	return e->tgid == e->pid && e->ppid == parent && e->ptgid == parent;
}

static bool attached(const struct ec_event *e, const void *arg)
{
	return e->ppid || e->ptgid;
}

static bool detached(const struct ec_event *e, const void *arg)
{
	return !attached(e, arg);
}

static bool is_comm(const struct ec_event *e, const void *comm)
{
	return !strcmp(e->comm, comm);
}

/* The event of a step; select tells those of one what apart */
static const struct kind {
	const char *name;
	__u32 what;
	enum step_id step;
	ec_pred *select;
	const void *arg;
} kinds[] = {
	{ "fork", PROC_EVENT_FORK, ST_FORK },
	{ "exec", PROC_EVENT_EXEC, ST_EXEC },
	{ "uid", PROC_EVENT_UID, ST_UID },
	{ "gid", PROC_EVENT_GID, ST_GID },
	{ "sid", PROC_EVENT_SID, ST_SID },
	{ "ptrace_attach", PROC_EVENT_PTRACE, ST_ATTACH, attached },
	{ "ptrace_detach", PROC_EVENT_PTRACE, ST_DETACH, detached },
	{ "comm", PROC_EVENT_COMM, ST_COMM, is_comm, COV_COMM },
	{ "coredump", PROC_EVENT_COREDUMP, ST_CORE },
	{ "exit_code", PROC_EVENT_EXIT, ST_EXEC },
	{ "exit_signal", PROC_EVENT_EXIT, ST_CORE },
}, marks[] = {
	{ "mark-a", PROC_EVENT_COMM, ST_MARK_A, is_comm, "mark-a" },
	{ "mark-b", PROC_EVENT_COMM, ST_MARK_B, is_comm, "mark-b" },
	{ "mark-c", PROC_EVENT_COMM, ST_MARK_C, is_comm, "mark-c" },
};

static void exec_exit(const char *code)
{
	execl("/proc/self/exe", "cn_proc_test", "--exit", code, (char *)NULL);
	_exit(127);
}

/*
 * A child that dies of SIGABRT (the coredump event is sent even though
 * PR_SET_DUMPABLE 0 stops a core file), or that execs and exits 3.
 */
static void spawn(enum step_id i)
{
	struct step *st = &script->st[i];
	int pid = fork();

	if (!pid) {
		prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
		st->before = now_ns();
		if (i == ST_CORE)
			kill(getpid(), SIGABRT);
		exec_exit("3");
	}
	st->pid = pid;
	st->err = pid < 0 ? errno : 0;
	if (pid > 0)
		waitpid(pid, NULL, 0);
	st->after = now_ns();
}

/*
 * A child of the test dies with it, whatever ends it: the parent may have
 * died already, before PR_SET_PDEATHSIG was set.
 */
static void die_with(pid_t parent)
{
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) || getppid() != parent)
		_exit(1);
}

static void script_child(pid_t parent, int go[2])
{
	char c;

	die_with(parent);
	close(go[1]);
	/* until the listener has attached and detached */
	if (read(go[0], &c, 1) != 1)
		_exit(1);
	TIMED(ST_SID, setsid());
	TIMED(ST_COMM, prctl(PR_SET_NAME, COV_COMM, 0, 0, 0));
	TIMED(ST_MARK_A, prctl(PR_SET_NAME, marks[0].name, 0, 0, 0));
	sleep_ms(100);
	TIMED(ST_MARK_B, prctl(PR_SET_NAME, marks[1].name, 0, 0, 0));
	sleep_ms(250);
	TIMED(ST_MARK_C, prctl(PR_SET_NAME, marks[2].name, 0, 0, 0));
	spawn(ST_CORE);
	spawn(ST_EXEC);
	/* privileges last, nothing after needs them */
	TIMED(ST_GID, setgid(TEST_GID));
	TIMED(ST_UID, setuid(TEST_UID));
	_exit(0);
}

/* Yama's ptrace_scope 3 lets no process attach, root's neither */
static bool ptrace_forbidden(void)
{
	FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "r");
	int scope = 0;

	if (!f)
		return false;
	if (fscanf(f, "%d", &scope) != 1)
		scope = 0;
	fclose(f);
	return scope == 3;
}

static void run_script(void)
{
	pid_t parent = getpid();
	int go[2], i, pid;

	script = shared(sizeof(*script));
	if (pipe(go))
		ksft_exit_fail_msg("pipe: %s\n", strerror(errno));
	TIMED(ST_FORK, pid = fork());
	if (pid < 0)
		ksft_exit_fail_msg("fork: %s\n", strerror(errno));
	if (!pid)
		script_child(parent, go);
	script->child = pid;
	for (i = 0; i < NR_STEPS; i++)	/* spawn() sets its own */
		script->st[i].pid = pid;
	no_ptrace = ptrace_forbidden();
	if (!no_ptrace) {
		TIMED(ST_ATTACH, ptrace(PTRACE_ATTACH, pid, NULL, NULL));
		if (!script->st[ST_ATTACH].err)
			waitpid(pid, NULL, 0);
		TIMED(ST_DETACH, ptrace(PTRACE_DETACH, pid, NULL, NULL));
	}
	if (write(go[1], "g", 1) != 1)
		ksft_exit_fail_msg("pipe write: %s\n", strerror(errno));
	waitpid(pid, NULL, 0);
	close(go[0]);
	close(go[1]);
}

/*
 * An exit is sent after exit_notify(): a parent that reaped the child
 * already is not named
 */
static bool fields_ok(const struct ec_event *e, const void *arg)
{
	__u32 id = e->what == PROC_EVENT_UID ? TEST_UID : TEST_GID;
	__u32 code = e->pid == script->st[ST_CORE].pid ? SIGABRT : 3 << 8;
	bool own = e->tgid == e->pid;

	switch (e->what) {
	case PROC_EVENT_FORK:		/* a child of the listener */
		return child_of(e, getpid());
	case PROC_EVENT_UID:
	case PROC_EVENT_GID:
		return own && e->id_r == id && e->id_e == id;
	case PROC_EVENT_PTRACE:		/* attach: traced by the listener */
		return attached(e, arg) ? child_of(e, getpid()) : own;
	case PROC_EVENT_COREDUMP:
		return child_of(e, script->child);
	case PROC_EVENT_EXIT:
		return (child_of(e, script->child) || child_of(e, 0)) &&
		       e->exit_code == code && e->exit_signal == SIGCHLD;
	default:			/* exec, sid, comm */
		return own;
	}
}

static const char * const match_why[] = {
	[EC_MATCH_NONE] = "no event",
	[EC_MATCH_MANY] = "more than one event",
	[EC_MATCH_EARLY] = "stamp before the window",
	[EC_MATCH_LATE] = "stamp after the window",
	[EC_MATCH_FIELDS] = "wrong fields",
};

/*
 * An exit is sent after the parent could reap: its window ends when it is
 * read
 */
static const struct ec_event *expect(const struct kind *k, ec_pred *fields)
{
	const struct step *st = &script->st[k->step];
	struct ec_match m = {
		.what = k->what, .pid = st->pid, .select = k->select,
		.fields = fields, .arg = k->arg, .before = st->before,
		.after = k->what == PROC_EVENT_EXIT ? EC_UNTIL_READ : st->after,
	};
	const struct ec_event *e;
	int ret;

	if (st->err) {
		ksft_print_msg("%s: %s\n", k->name, strerror(st->err));
		return NULL;
	}
	ret = ec_match_one(rec.ev, rec.n, &m, &e);
	if (ret == EC_MATCH_OK)
		return e;
	ksft_print_msg("%s: %s for pid %d, window [%llu, %llu]\n",
		       k->name, match_why[ret], m.pid, m.before,
		       e && m.after == EC_UNTIL_READ ? e->rx : m.after);
	if (!e)
		return NULL;
	ksft_print_msg("%s: stamp %llu tgid %d parent %d/%d id %u/%u\n",
		       k->name, e->ts, e->tgid, e->ppid, e->ptgid, e->id_r,
		       e->id_e);
	ksft_print_msg("%s: exit %u/%u comm %s\n", k->name, e->exit_code,
		       e->exit_signal, e->comm);
	return NULL;
}

/* Marks k[0] and k[1] were set ms apart */
static void test_delta(const struct kind *k, int ms)
{
	const struct step *st = &script->st[k->step];
	const struct ec_event *a = expect(&k[0], NULL);
	const struct ec_event *b = expect(&k[1], NULL);
	/* between the middles of the two windows */
	unsigned long long ud = (st[1].before + st[1].after -
				 st[0].before - st[0].after) / 2;
	int ret = EC_DELTA_SHORT;
	const char *why;

	if (a && b) {
		ret = ec_check_delta(a->ts, b->ts, ms * NSEC_PER_MSEC, ud);
		why = ret == EC_DELTA_SHORT ? ": shorter than the sleep" :
		      ret == EC_DELTA_OFF ? ": off by more than 20 ms" : "";
		ksft_print_msg("delta_%dms: %s %lld ns apart, %s %llu ns%s\n",
			       ms, "stamps", (long long)(b->ts - a->ts),
			       "userspace", ud, why);
	}
	ksft_test_result(ret == EC_DELTA_OK, "delta_%dms\n", ms);
}

static int on_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/*
 * Order within a process across cpus: a burst of events on cpu 1 ending
 * with mark a, then mark b from cpu 0. Stamps ordered per cpu rather than
 * globally, on a clock that stands still between ticks, put b below a. The
 * listener itself is the process; one cpu: no probes.
 */
static int run_probes(void)
{
	char name[16];
	cpu_set_t all;
	int i, j;

	sched_getaffinity(0, sizeof(all), &all);
	for (i = 0; i < PROBES && !on_cpu(1); i++) {
		for (j = 0; j < PROBE_BURST; j++)
			prctl(PR_SET_NAME, "cn-burst", 0, 0, 0);
		snprintf(name, sizeof(name), "cn-a%d", i);
		prctl(PR_SET_NAME, name, 0, 0, 0);
		on_cpu(0);
		snprintf(name, sizeof(name), "cn-b%d", i);
		prctl(PR_SET_NAME, name, 0, 0, 0);
	}
	sched_setaffinity(0, sizeof(all), &all);
	prctl(PR_SET_NAME, "cn_proc_test", 0, 0, 0);
	return i;
}

/* Probes whose mark b is stamped below mark a, or -1 for a mark missing */
static int probes_out_of_order(int probes)
{
	const struct ec_event *e[2];
	char name[2][16];
	int i, k, bad = 0;

	for (i = 0; i < probes; i++) {
		for (k = 0; k < 2; k++) {
			struct ec_match m = {
				.what = PROC_EVENT_COMM, .pid = getpid(),
				.select = is_comm, .arg = name[k],
				.after = EC_UNTIL_READ,
			};

			snprintf(name[k], sizeof(name[k]), "cn-%c%d",
				 'a' + k, i);
			if (ec_match_one(rec.ev, rec.n, &m, &e[k]) !=
			    EC_MATCH_OK)
				return -1;
		}
		bad += e[1]->ts < e[0]->ts;
	}
	return bad;
}

static struct {
	unsigned long workers, target, seconds;
	int *pids;
	unsigned long long rate;	/* events per second */
} load = { DEF_WORKERS, DEF_EVENTS, DEF_SECONDS };

/* Forks and execs until told to stop, or until the test dies */
static void worker(pid_t parent, int *stop)
{
	int pid;

	die_with(parent);
	while (!__atomic_load_n(stop, __ATOMIC_RELAXED)) {
		pid = fork();
		if (!pid) {
			setsid();
			prctl(PR_SET_NAME, "cn-load", 0, 0, 0);
			exec_exit("0");
		}
		if (pid < 0)
			_exit(1);
		waitpid(pid, NULL, 0);
	}
	_exit(0);
}

static void run_load(void)
{
	int *stop = shared(sizeof(*stop));
	unsigned long long start = now_ns();
	unsigned long long limit = load.seconds * NSEC_PER_SEC;
	size_t i, first = rec.n;
	pid_t parent = getpid();

	load.pids = calloc(load.workers, sizeof(*load.pids));
	if (!load.pids)
		ksft_exit_fail_msg("out of memory\n");
	for (i = 0; i < load.workers; i++) {
		load.pids[i] = fork();
		if (!load.pids[i])
			worker(parent, stop);
	}
	while (rec.n - first < load.target && now_ns() - start < limit)
		rec_poll(POLL_MS);
	__atomic_store_n(stop, 1, __ATOMIC_RELAXED);
	load.rate = (rec.n - first) * NSEC_PER_SEC / (now_ns() - start);
	for (i = 0; i < load.workers; i++)
		if (load.pids[i] > 0)
			waitpid(load.pids[i], NULL, 0);
	rec_poll(0);
}

/*
 * Before the load, the messages the checks up to it read: the exit of each
 * scripted process (sent after its parent may have reaped it) and a message
 * of the ack's cpu after the ack, which the listener causes there itself.
 * Up to ACK_WAIT_MS; what is missing then fails.
 */
static bool exited(int pid)
{
	size_t i;

	for (i = 0; i < rec.n; i++)
		if (rec.ev[i].what == PROC_EVENT_EXIT && rec.ev[i].pid == pid)
			return true;
	return false;
}

static void follow_ack(void)
{
	size_t at = find_ack();
	cpu_set_t all;

	sched_getaffinity(0, sizeof(all), &all);
	if (!on_cpu(rec.ev[at].cpu))
		prctl(PR_SET_NAME, "cn_proc_test", 0, 0, 0);
	sched_setaffinity(0, sizeof(all), &all);
}

static bool script_read(void)
{
	return exited(script->child) && exited(script->st[ST_CORE].pid) &&
	       exited(script->st[ST_EXEC].pid) &&
	       ack_followed(&rec.ev[find_ack()]);
}

static void wait_script(void)
{
	unsigned long long end = now_ns() + ACK_WAIT_MS * NSEC_PER_MSEC;

	rec_poll(0);
	while (!script_read() && now_ns() < end)
		rec_poll(POLL_MS);
}

/*
 * A check of the order the stamps keep with the series: skipped on a
 * kernel without it
 */
static void test_order(bool pass, const char *name)
{
	if (in_order > 0)
		ksft_test_result(pass, "%s\n", name);
	else
		ksft_test_result_code(KSFT_SKIP, name, "%s", order_why);
}

/*
 * The order checks are decided where the kernel stamps in seq order: the
 * stamps' domain is listed in /proc/kallsyms (the names are listed
 * whatever kptr_restrict says).
 */
static void probe_order(bool any_kernel)
{
	static char why[128];
	FILE *f = fopen("/proc/kallsyms", "r");

	in_order = ec_stamps_in_order(f);
	if (f)
		fclose(f);
	if (in_order < 0)
		snprintf(why, sizeof(why), "/proc/kallsyms unreadable: %s",
			 "whether stamps keep seq order is unknown");
	else if (!in_order)
		snprintf(why, sizeof(why), "no %s in /proc/kallsyms: %s",
			 EC_STAMP_SYMBOL, "seq order not promised");
	order_why = why;
	if (in_order > 0)
		ksft_print_msg("order checks: decided, %s listed\n",
			       EC_STAMP_SYMBOL);
	else
		ksft_print_msg("order checks: %s, %s\n",
			       any_kernel ? "decided (-a)" : "skipped",
			       order_why);
	if (any_kernel)
		in_order = 1;
}

/*
 * The ack as clients have seen it since seq and cpu moved into send_msg()
 * (its CPU's sequence and that CPU: keepalived relies on both), and, apart,
 * its stamp below that of the next message of its CPU, which the stamp's
 * order promises and a base kernel need not keep.
 */
static struct ec_event test_ack(void)
{
	long ncpus = sysconf(_SC_NPROCESSORS_CONF);
	const struct ec_event *ack;
	unsigned int faults = ec_check_ack(rec.ev, rec.n, REQ_ACK, ncpus,
					   &ack);

	if (ack)
		ksft_print_msg("ack: seq=%u ack=%u cpu=%u err=%u, %ld cpus\n",
			       ack->seq, ack->ack, ack->cpu, ack->err, ncpus);
	if (faults)
		ksft_print_msg("ack: faults %#x (%s%s)\n", faults,
			       "1: not one, 2: err, 4: cpu, 8: next seq, ",
			       "0x10: order");
	ksft_test_result(!(faults & ~EC_ACK_ORDER), "ack\n");
	test_order(!(faults & (EC_ACK_COUNT | EC_ACK_ORDER)), "ack_order");
	return ack ? *ack : (struct ec_event){ 0 };
}

/*
 * No event of the scripted processes, the workers or the workers' children
 * before its fork or after its exit, and the probes' marks in order.
 */
static void test_causal(int probes)
{
	int *pids = malloc((rec.n + load.workers + 3) * sizeof(*pids));
	size_t i, j, n = 0, checked;
	const struct ec_event *e;
	long long bad;
	int late;

	if (!pids)
		ksft_exit_fail_msg("out of memory\n");
	pids[n++] = script->child;
	pids[n++] = script->st[ST_CORE].pid;
	pids[n++] = script->st[ST_EXEC].pid;
	for (i = 0; i < load.workers; i++)
		pids[n++] = load.pids[i];
	for (e = rec.ev; e < rec.ev + rec.n; e++)
		for (j = 0; j < load.workers; j++)
			if (e->what == PROC_EVENT_FORK &&
			    e->ppid == load.pids[j])
				pids[n++] = e->pid;
	bad = ec_check_causal(rec.ev, rec.n, pids, n, &checked);
	if (bad < 0)
		ksft_exit_fail_msg("out of memory\n");
	late = probes_out_of_order(probes);
	ksft_print_msg("%s: %zu processes, %lld violations; %d probes, %d %s\n",
		       "causal_order", checked, bad, probes, late,
		       late < 0 ? "out of order (marks missing)" :
		       "out of order");
	ksft_test_result(!bad && !late, "causal_order\n");
	free(pids);
}

/* One event of each kind; under Yama's ptrace_scope 3, no ptrace ones */
static void test_kinds(void)
{
	const struct kind *k;

	for (k = kinds; k < kinds + ARRAY_SIZE(kinds); k++)
		if (no_ptrace && k->what == PROC_EVENT_PTRACE)
			ksft_test_result_code(KSFT_SKIP, k->name, "%s",
					      "Yama ptrace_scope 3: no attach");
		else
			ksft_test_result(expect(k, fields_ok), "%s\n",
					 k->name);
}

static void print_help(const char *prog)
{
	fprintf(stderr, "usage: %s [-a] [-w workers (%d)] [-n events (%d)]",
		prog, DEF_WORKERS, DEF_EVENTS);
	fprintf(stderr, " [-t seconds (%d)]\n", DEF_SECONDS);
	fprintf(stderr, "  -a: decide the order checks on any kernel\n");
}

int main(int argc, char **argv)
{
	struct ec_event ack;
	struct ec_stats st;
	unsigned long *v;
	bool any_kernel = false;
	char *end = "";
	int opt, probes;

	/* the role of the exec'ed children */
	if (argc == 3 && !strcmp(argv[1], "--exit"))
		return atoi(argv[2]);
	while ((opt = getopt(argc, argv, "aw:n:t:")) != -1) {
		if (opt == 'a') {
			any_kernel = true;
			continue;
		}
		v = opt == 'w' ? &load.workers : opt == 'n' ? &load.target :
		    opt == 't' ? &load.seconds : NULL;
		if (v)
			*v = strtoul(optarg, &end, 0);
		if (!v || !*v || *end) {
			print_help(argv[0]);
			return KSFT_FAIL;
		}
	}

	ksft_print_header();
	check_namespaces();
	if (geteuid())
		ksft_exit_skip("must be run as root\n");
	subscribe();
	ksft_set_plan(NR_TESTS);
	probe_order(any_kernel);
	follow_ack();
	run_script();
	wait_script();

	ack = test_ack();
	test_kinds();
	test_delta(&marks[0], 100);
	test_delta(&marks[1], 250);

	probes = run_probes();
	run_load();
	if (ec_check_order(rec.ev, rec.n, &st))
		ksft_exit_fail_msg("out of memory\n");
	test_causal(probes);
	ksft_print_msg("load_order: %llu %s (largest %llu ns), %llu ties\n",
		       st.inversions, "inversions", st.max_inversion_ns,
		       st.ties);
	test_order(!st.inversions && !st.ties, "load_order");
	ksft_print_msg("load_unique: %llu duplicate stamps\n", st.duplicates);
	test_order(!st.duplicates, "load_unique");
	ksft_print_msg("cn_proc: events=%zu cpus=%llu inversions=%llu",
		       rec.n, st.cpus, st.inversions);
	printf(" max_inversion_ns=%llu ties=%llu duplicates=%llu gaps=%llu",
	       st.max_inversion_ns, st.ties, st.duplicates, st.gaps);
	printf(" losses=%llu enobufs=%llu rate=%llu", st.losses, rec.enobufs,
	       load.rate);
	printf(" ack_seq=%u ack_cpu=%u lead_ns=%llu\n", ack.seq, ack.cpu,
	       st.lead_ns);
	ksft_finished();
}

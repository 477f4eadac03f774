// SPDX-License-Identifier: GPL-2.0
/*
 * What process event listeners rely on: the ack, each kind of event stamped
 * in its call's window, a delta, and under load causal order, stamps rising
 * with seq on each CPU and none shared (SKIP unless cn_proc has
 * proc_event_stamps, listed in /proc/kallsyms, or -a).
 */
#define _GNU_SOURCE
#include <signal.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>

#include "../kselftest.h"

#define REQ_ACK		5678
#define ID		4242		/* the uid and gid set */
#define EXIT_ROLE	"cn_proc_exit"	/* argv[0] of an exec that exits 3 */
#define PID_MASK	((1 << 22) - 1)	/* PID_MAX_LIMIT - 1 */
#define TS(m)		((m)->ev.timestamp_ns)

struct msg { __u32 seq, ack; struct proc_event ev; };	/* as received */

static struct msg *msgs;
static size_t nmsgs, size, enobufs;
static int sock, pids[3];	/* the test, its children: [~L, ~C, ~X] */

enum { X = -3, C, L, FORK, CORE, UID, GID, COMM, ATTACH, EXEC, DETACH, SID,
	EXIT_CODE, EXIT_SIGNAL, NR_STEPS };
#define K(name, what, ...) { name, PROC_EVENT_##what, { __VA_ARGS__ } }

static const struct {			/* the event of each step */
	const char *name;
	__u32 what;
	int want[6];			/* its event_data; comm: the name */
} kinds[NR_STEPS] = {
	K("fork", FORK, L, L, C, C), K("coredump", COREDUMP, X, X, L, L),
	K("uid", UID, C, C, ID, ID), K("gid", GID, C, C, ID, ID),
	K("comm", COMM, L, L), K("ptrace_attach", PTRACE, C, C, L, L),
	K("exec", EXEC, C, C), K("ptrace_detach", PTRACE, C, C),
	K("sid", SID, C, C), K("exit_code", EXIT, C, C, 3 << 8, SIGCHLD),
	K("exit_signal", EXIT, X, X, SIGABRT, SIGCHLD),
};

static struct step { int err; __u64 before, after; } *st;	/* shared */

static struct {				/* what analyse() finds */
	const struct msg *ack, *next, *got[NR_STEPS];
	size_t acks, found[NR_STEPS], procs, causal;
	unsigned long long inversions, ties, shared;
	bool ack_ok, ack_order, ok[NR_STEPS], delta_ok;
	long long delta, lo, hi;	/* uid - gid, and its bounds */
} r;

static __u64 now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

#define TIMED(s, call) do {					\
	st[s].before = now();					\
	st[s].err = (call) < 0 ? errno : 0;			\
	st[s].after = now();					\
} while (0)

static int send_op(enum proc_cn_mcast_op op)
{
	struct {			/* struct cn_msg, op its data */
		struct nlmsghdr nlh;
		__u32 idx, val, seq, ack;
		__u16 len, flags;
		__u32 op;
	} req = { { sizeof(req), NLMSG_DONE }, CN_IDX_PROC, CN_VAL_PROC, 0,
		  REQ_ACK, sizeof(op), 0, op };

	return send(sock, &req, sizeof(req), 0);
}

/* The connector counts a listener until its IGNORE, closed or not */
static void unsubscribe(void)
{
	send_op(PROC_CN_MCAST_IGNORE);
}

/* The queue holds the load: the test reads it when the load is done */
static void subscribe(void)
{
	struct sockaddr_nl sa = { AF_NETLINK, .nl_groups = CN_IDX_PROC };

	sock = socket(AF_NETLINK, SOCK_DGRAM, NETLINK_CONNECTOR);
	if (sock < 0 || bind(sock, (struct sockaddr *)&sa, sizeof(sa)))
		ksft_exit_fail_perror("NETLINK_CONNECTOR socket");
	setsockopt(sock, SOL_SOCKET, SO_RCVBUFFORCE, &(int){ 256 << 20 },
		   sizeof(int));
	if (send_op(PROC_CN_MCAST_LISTEN) < 0 && errno == ECONNREFUSED)
		ksft_exit_skip("in a network namespace, not the initial\n");
	pids[0] = getpid();
	atexit(unsubscribe);
}

/* Whether f, a listing like /proc/kallsyms, names sym; closes f */
static bool lists(FILE *f, const char *sym)
{
	char line[640], name[600];
	bool found = false;

	while (f && !found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%*s %*s %599s", name) == 1 &&
			!strcmp(name, sym);
	if (f)
		fclose(f);
	return found;
}

/* A child, traced, sets sid, gid, uid, execs; another aborts; a rename */
static void run_steps(void)
{
	int go[2];

	st = mmap(NULL, NR_STEPS * sizeof(*st), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (st == MAP_FAILED || pipe(go))
		ksft_exit_fail_perror("mmap, pipe");
	TIMED(FORK, pids[1] = fork());	/* the child's reading is late too */
	if (!pids[1] && !close(go[1]) && read(go[0], go, 1) == 1) {
		TIMED(SID, setsid());
		TIMED(GID, setgid(ID));
		usleep(100000);		/* what the delta measures */
		TIMED(UID, setuid(ID));
		st[EXEC].before = now();
		execl("/proc/self/exe", EXIT_ROLE, NULL);
	}
	if (!pids[1])
		_exit(1);
	TIMED(ATTACH, ptrace(PTRACE_ATTACH, pids[1], NULL, NULL));
	if (!st[ATTACH].err)
		waitpid(pids[1], NULL, 0);
	TIMED(DETACH, ptrace(PTRACE_DETACH, pids[1], NULL, NULL));
	if (write(go[1], "g", 1) != 1 || waitpid(pids[1], NULL, 0) < 0)
		ksft_exit_fail_perror("child");
	st[EXEC].after = now();
	TIMED(CORE, pids[2] = fork());
	if (!pids[2])	/* the event, no core file */
		_exit(prctl(PR_SET_DUMPABLE, 0) || raise(SIGABRT));
	waitpid(pids[2], NULL, 0);
	st[CORE].after = now();
	TIMED(COMM, prctl(PR_SET_NAME, kinds[COMM].name));
	st[EXIT_CODE].before = st[EXEC].before;
	st[EXIT_SIGNAL].before = st[CORE].before;
}

/* Children fork children that exec and exit, for about events or secs */
static void run_load(unsigned long workers, unsigned long events,
		     unsigned long secs)
{
	unsigned long i, n = events / 5 / workers + 1;	/* each child's five */
	__u64 buf[128], end = now() + secs * 1000000000ULL;
	struct cn_msg *cn = NLMSG_DATA(buf);
	ssize_t len, pid;

	for (i = 0; i < workers; i++) {
		if (fork())
			continue;
		/* dies with the test, which may be gone already */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != pids[0])
			_exit(1);
		while (n-- && now() < end) {
			pid = fork();
			if (!pid && setsid() > 0 &&
			    !prctl(PR_SET_NAME, "cn_proc_load"))
				execl("/proc/self/exe", EXIT_ROLE, NULL);
			if (pid < 0 || waitpid(pid, NULL, 0) != pid)
				_exit(1);
		}
		_exit(0);
	}
	while (wait(NULL) > 0)
		;
	/* the queue held it all: a message a datagram */
	while ((len = recv(sock, buf, sizeof(buf), MSG_DONTWAIT)) >= 0 ||
	       errno == ENOBUFS) {
		enobufs += len < 0;
		if (len < 0 || cn->id.idx != CN_IDX_PROC ||
		    len < NLMSG_LENGTH(sizeof(*cn) + sizeof(msgs->ev)))
			continue;
		if (nmsgs == size)
			msgs = realloc(msgs, (size += 65536) * sizeof(*msgs));
		if (!msgs)
			ksft_exit_fail_msg("out of memory\n");
		msgs[nmsgs] = (struct msg){ cn->seq, cn->ack };
		memcpy(&msgs[nmsgs++].ev, cn->data, sizeof(msgs->ev));
	}
	if (errno != EAGAIN)
		ksft_exit_fail_perror("recv");
	st[EXIT_CODE].after = now();	/* sent after a reap: until read */
	st[EXIT_SIGNAL].after = st[EXIT_CODE].after;
}

static int cmp_u64(const void *a, const void *b)
{
	return (*(__u64 *)a > *(__u64 *)b) - (*(__u64 *)a < *(__u64 *)b);
}

/*
 * A CPU's messages are received in seq order; a process's after its fork,
 * which does not reuse a pid before its last exit is sent. A stamp leads
 * CLOCK_MONOTONIC by 1 ns per message stamped since the clock passed the
 * newest stamp: n at most.
 */
static void analyse(const struct msg *m, size_t n)
{
	size_t i, s, c, pid, cpus = sysconf(_SC_NPROCESSORS_CONF);
	__u64 *born = calloc(2 * (PID_MASK + 1) + n + cpus + 1, sizeof(*born));
	__u64 *died = born + PID_MASK + 1;	/* 0: not seen forked */
	__u64 *ts = died + PID_MASK + 1, *last = ts + n;
	__u32 want[NR_STEPS][6];	/* the event_data of each step */
	const struct proc_event *e;

	if (!born)
		ksft_exit_fail_msg("out of memory\n");
	memset(&r, 0, sizeof(r));
	for (s = 0; s < NR_STEPS; s++)
		for (c = 0; c < 6; c++)
			want[s][c] = kinds[s].want[c] < 0 ?
				pids[~kinds[s].want[c]] : kinds[s].want[c];
	snprintf((char *)&want[COMM][2], 16, "%s", kinds[COMM].name);
	for (i = 0; i < n; i++) {
		e = &m[i].ev;
		ts[i] = e->timestamp_ns;
		c = e->cpu < cpus ? e->cpu : cpus;
		r.ties += ts[i] == last[c];
		r.inversions += ts[i] < last[c];
		last[c] = ts[i];
		if (r.ack && !r.next && e->cpu == r.ack->ev.cpu)
			r.next = &m[i];
		if (e->what == PROC_EVENT_NONE && m[i].ack == REQ_ACK + 1 &&
		    !r.acks++)
			r.ack = &m[i];
		pid = e->event_data.exec.process_pid & PID_MASK;
		if (e->what != PROC_EVENT_NONE && died[pid])
			r.causal += ts[i] < born[pid] || ts[i] > died[pid];
		if (e->what == PROC_EVENT_EXIT && died[pid])
			died[pid] = ts[i];
		pid = e->event_data.fork.child_pid & PID_MASK;
		if (e->what == PROC_EVENT_FORK && ++r.procs) {
			born[pid] = ts[i];
			died[pid] = ~0ULL;
		}
		/* an exit sent after a reap names no parent: unchecked */
		for (s = 0; s < NR_STEPS; s++)
			if (e->what == kinds[s].what &&
			    !memcmp(&e->event_data, want[s],
				    e->what == PROC_EVENT_EXIT ? 16 : 24) &&
			    !r.found[s]++)
				r.got[s] = &m[i];
	}
	qsort(ts, n, sizeof(*ts), cmp_u64);
	for (i = 1; i < n; i++)
		r.shared += ts[i] == ts[i - 1];
	r.ack_ok = r.acks == 1 && r.next && !r.ack->ev.event_data.ack.err &&
		   r.ack->ev.cpu < cpus && r.next->seq == r.ack->seq + 1;
	r.ack_order = r.next && TS(r.next) > TS(r.ack);
	for (s = 0; s < NR_STEPS; s++)
		r.ok[s] = !st[s].err && r.found[s] == 1 &&
			  TS(r.got[s]) >= st[s].before &&
			  TS(r.got[s]) <= st[s].after + n;
	r.lo = st[UID].before - st[GID].after - n;
	r.hi = st[UID].after - st[GID].before + n;
	r.delta_ok = r.ok[UID] && r.ok[GID];
	r.delta = r.delta_ok ? TS(r.got[UID]) - TS(r.got[GID]) : 0;
	r.delta_ok &= r.delta >= r.lo && r.delta <= r.hi;
	free(born);
}

static void report(bool pass, const char *name, const char *why)
{
	ksft_test_result_code(why ? KSFT_SKIP : pass ? KSFT_PASS : KSFT_FAIL,
			      name, why ? "%s" : NULL, why);
}

int main(int argc, char **argv)
{
	unsigned long opt[3] = { 4, 20000, 25 };	/* -w, -n, -t */
	const char *undecided = NULL;
	char *p, *e = "";
	struct stat sb;
	int c, s, any = 0;

	if (!strcmp(argv[0], EXIT_ROLE))
		return 3;
	while ((c = getopt(argc, argv, "aw:n:t:")) != -1) {
		p = strchr("wnt", c);
		any |= c == 'a';
		if (p)
			opt[p - "wnt"] = strtoul(optarg, &e, 10);
		if (c == '?' || (p && (!opt[p - "wnt"] || *e)))
			ksft_exit_fail_msg("usage: [-a] [-wnt N]\n");
	}
	ksft_print_header();
	/* the initial namespaces' inodes; unshare -p: no pid_for_children */
	if (!stat("/proc/self/ns/user", &sb) && sb.st_ino != 0xEFFFFFFD)
		ksft_exit_skip("in a user namespace, not the initial\n");
	if ((!stat("/proc/self/ns/pid", &sb) && sb.st_ino != 0xEFFFFFFC) ||
	    (stat("/proc/self/ns/pid_for_children", &sb) ?
	     !access("/proc/self/ns/pid", F_OK) : sb.st_ino != 0xEFFFFFFC))
		ksft_exit_skip("in a pid namespace, not the initial\n");
	if (geteuid())
		ksft_exit_skip("must be run as root\n");
	if (!any && !lists(fopen("/proc/kallsyms", "r"), "proc_event_stamps"))
		undecided = "no proc_event_stamps in /proc/kallsyms";
	subscribe();
	ksft_set_plan(NR_STEPS + 6);
	run_steps();
	run_load(opt[0], opt[1], opt[2]);
	analyse(msgs, nmsgs);

	report(r.ack_ok, "ack", NULL);
	report(r.ack_order, "ack_order", undecided);
	for (s = 0; s < NR_STEPS; s++) {
		if (!r.ok[s])
			ksft_print_msg("%s: %zu, %llu in [%llu, %llu]? %s\n",
				       kinds[s].name, r.found[s],
				       r.got[s] ? TS(r.got[s]) : 0,
				       st[s].before, st[s].after + nmsgs,
				       strerror(st[s].err));
		report(r.ok[s], kinds[s].name, st[ATTACH].err == EPERM &&
		       kinds[s].what == PROC_EVENT_PTRACE ? "Yama?" : NULL);
	}
	ksft_print_msg("delta: %lld ns in [%lld, %lld]\n", r.delta, r.lo, r.hi);
	report(r.delta_ok, "delta", NULL);
	ksft_print_msg("%zu events, %zu ENOBUFS, %zu forks: %zu out of order\n",
		       nmsgs, enobufs, r.procs, r.causal);
	report(!r.causal, "causal_order", NULL);
	ksft_print_msg("%llu inversions, %llu ties, %llu shared stamps\n",
		       r.inversions, r.ties, r.shared);
	report(!r.inversions && !r.ties, "load_order", undecided);
	report(!r.shared, "load_unique", undecided);
	ksft_finished();
}

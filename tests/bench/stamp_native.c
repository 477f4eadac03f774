// SPDX-License-Identifier: GPL-2.0
/*
 * stamp_native: what each way of stamping process events costs on this
 * machine's real cores, next to what the events themselves cost.
 *
 * The four candidates for the stamp of drivers/connector/cn_proc.c, each run
 * as the kernel runs it: the same algorithm, CLOCK_MONOTONIC from the vDSO
 * for ktime_get_ns(), GCC __atomic builtins for the kernel's atomics:
 *
 *   base              ktime_get_ns() in each proc_*_connector(), before
 *                     send_msg() takes the local lock (today's kernels)
 *   clock-under-lock  ktime_get_ns() in send_msg(), under the local lock
 *   per-cpu-floor     under the local lock, a plain per-CPU u64:
 *                     *f = max(now, *f + 1)
 *   series            one global ordering domain on a line of its own:
 *                     read the clock, then atomic64_read() and an
 *                     atomic64_try_cmpxchg() loop, next = max(now, last + 1)
 *
 * and, as a reference for what the event path's existing global writes
 * cost, not a candidate:
 *
 *   atomic-inc        base and one atomic_inc_return() of a counter on a
 *                     line of its own that all callers write
 *
 * A thread pinned to one core plays one CPU. The local lock is
 * preempt_disable() on a PREEMPT kernel (a per-CPU lock on PREEMPT_RT),
 * taken by every candidate alike; it has no userspace equivalent and is not
 * modelled. base and clock-under-lock are therefore the same code here: what
 * differs between them in the kernel is where the clock is read, not what it
 * costs, so their difference is this method's own noise.
 *
 * Each round measures, in turn:
 *   stamp     every scheme with 1 thread (on the first core), and with 2
 *             threads (one per core, started behind a barrier, stopped when
 *             the first is done so that they overlap all the time) calling
 *             back to back, where the domain's line is fought over, and
 *             spaced by -g steps of local work (200, under a microsecond), where
 *             each call finds the line last written by the other core, as
 *             events spread over CPUs do: ns per call (with the local work
 *             in the spaced case, which pairing with base removes), and for
 *             series the cmpxchg failures per call;
 *   transfer  a ping-pong between the two cores on one line, each writing a
 *             value the other spins on: one round trip is two transfers of
 *             the line, reported as ns per transfer;
 *   events    fork, exec of exit_at_once and exit, the parent waiting, on
 *             the first core: ns per process event (3 per iteration), once
 *             with no listener and once with one listener process on the
 *             second core subscribed to the process events connector and
 *             reading everything (root and CONFIG_PROC_EVENTS).
 * The order of the schemes rotates from round to round, and so does that of
 * the two event states.
 *
 * Output: a line per round and figure, then per figure the median over the
 * rounds and a distribution-free 95% confidence interval of the median, from
 * order statistics (ranks from the binomial(n, 1/2) quantiles; none with
 * fewer than 6 rounds), then a markdown table:
 *
 *   stamp_native: round=R part=stamp scheme=S threads=T gap=G ns_per_call=X
 *                 fail_per_call=F overlap=O
 *   stamp_native: round=R part=transfer ns_per_transfer=X
 *   stamp_native: round=R part=events listener=none|one ns_per_event=X
 *                 received=N expected=N enobufs=N
 *   stamp_native: scheme=S threads=T gap=G ns_per_call=M ci_low=L ci_high=H
 *                 fail_per_call=F overlap_min=O rounds=N
 *   stamp_native: transfer ns_per_transfer=M ci_low=L ci_high=H rounds=N
 *   stamp_native: events listener=none|one ns_per_event=M ci_low=L ci_high=H
 *                 rounds=N
 *   stamp_native: overhead scheme=S threads=T gap=G extra_ns=M ci_low=L
 *                 ci_high=H fraction=F fraction_low=L fraction_high=H rounds=N
 * (each on one line).
 *
 * extra_ns is the median over rounds of the scheme's ns per call minus
 * base's in the same round; fraction is extra_ns over the ns per event with
 * one listener, its interval the extremes of the two intervals combined.
 *
 *   gcc -O2 -pthread -o stamp_native stamp_native.c
 *   gcc -O2 -static -nostdlib -fno-stack-protector -o exit_at_once exit_at_once.c
 *   ./stamp_native [-r rounds] [-n calls] [-g gap] [-p round-trips] [-e iterations]
 *                  [-x exec-path] [-P stamp,transfer,events] [-f]
 *
 * -f runs everything at SCHED_FIFO priority 1, so that other work on the
 * machine waits while it measures (not the host's scheduling of the vCPUs,
 * nor what that work leaves in the caches): for a machine that is not
 * quiet; the header says sched=fifo.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <linux/cn_proc.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#define NSEC_PER_SEC	1000000000ULL
#define MAX_ROUNDS	101
#define LINE		64
#define ACK_TIMEOUT_MS	5000
#define RCVBUF_BYTES	(64 << 20)

enum scheme { BASE, CLOCK_UNDER_LOCK, PER_CPU_FLOOR, SERIES, ATOMIC_INC, NR_SCHEMES };

static const char *const scheme_name[NR_SCHEMES] = {
	"base", "clock-under-lock", "per-cpu-floor", "series", "atomic-inc",
};

/* The connector's ordering domain, alone on its line (__cacheline_aligned_in_smp). */
static struct { _Alignas(LINE) uint64_t last; } domain;
/* A counter all CPUs write, as nl_table_users or a socket's refcount. */
static struct { _Alignas(LINE) uint64_t count; } shared;
/* Per-CPU data of two CPUs never shares a line. */
static struct { _Alignas(LINE) uint64_t floor; } floors[2];
/* The callers' start barrier and stop flag, and the ping-pong's line. */
static struct { _Alignas(LINE) int ready; } start_line;
static struct { _Alignas(LINE) int stop; } stop_line;
static struct { _Alignas(LINE) uint64_t v; } ball;

static int cpus[2];
static volatile uint64_t sink;

static void die(const char *what)
{
	fprintf(stderr, "stamp_native: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* ktime_get_ns(): CLOCK_MONOTONIC, which the vDSO reads without a syscall. */
static inline uint64_t clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/*
 * The four stamps. noipa: each is a call of its own, as the kernel's
 * ktime_get_ns() and ktime_get_ordered_ns() are, and GCC may not merge the
 * first two.
 */
static __attribute__((noipa)) uint64_t stamp_base(void)
{
	return clock_ns();
}

static __attribute__((noipa)) uint64_t stamp_clock_under_lock(void)
{
	return clock_ns();
}

static __attribute__((noipa)) uint64_t stamp_per_cpu_floor(int cpu)
{
	uint64_t now = clock_ns();
	uint64_t *f = &floors[cpu].floor;

	*f = now > *f + 1 ? now : *f + 1;
	return *f;
}

/*
 * ktime_get_ordered_ns() as v4 orders it: the clock first, then the domain.
 * atomic64_read() is a plain load; the fully ordered atomic64_try_cmpxchg()
 * is a seq_cst compare-exchange (a failed one only reloads): on x86 both are
 * LOCK CMPXCHG.
 */
static __attribute__((noipa)) uint64_t stamp_series(uint64_t *fails)
{
	uint64_t now = clock_ns();
	uint64_t last = __atomic_load_n(&domain.last, __ATOMIC_RELAXED);
	uint64_t next;

	for (;;) {
		next = now > last + 1 ? now : last + 1;
		if (__atomic_compare_exchange_n(&domain.last, &last, next, false,
						__ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
			return next;
		(*fails)++;
	}
}

/*
 * Not a candidate: base and one atomic of a line all CPUs write, the
 * operation of which the event path already makes several per event
 * (nl_table_lock and nl_table_users, the listener's sk_refcnt, the
 * tasklist_lock and pidmap_lock acquisitions): what each of those costs,
 * measured as the domain is. Its result is returned, as the domain's stamp
 * is, so that the caller waits for it (atomic_inc_return(), as
 * atomic_dec_and_test() and a lock's cmpxchg are waited for): with the
 * result unused, out-of-order execution hides the transfer behind the
 * caller's next work, and the spaced calls would not show it.
 */
static __attribute__((noipa)) uint64_t stamp_atomic_inc(void)
{
	uint64_t now = clock_ns();

	return now + __atomic_add_fetch(&shared.count, 1, __ATOMIC_SEQ_CST);
}

struct caller {
	int idx, nthreads;
	enum scheme scheme;
	unsigned int gap;
	uint64_t max_calls, calls, fails, start, end;
};

/*
 * Work of this CPU's own between two stamps, as an event path does between
 * two events: @n steps of a dependent chain that touches no memory.
 */
static inline uint64_t local_work(uint64_t x, unsigned int n)
{
	while (n--) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

/* Wait until all @n threads are here; they then start within a line transfer. */
static void barrier(int n)
{
	__atomic_add_fetch(&start_line.ready, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&start_line.ready, __ATOMIC_ACQUIRE) < n)
		;
}

#define STOPPED() __atomic_load_n(&stop_line.stop, __ATOMIC_RELAXED)
#define CALL_LOOP(stamp)						\
	for (calls = 0; calls < c->max_calls && !STOPPED(); calls++) {	\
		if (c->gap)						\
			sum = local_work(sum, c->gap);			\
		sum += (stamp);						\
	}

static void *caller_fn(void *arg)
{
	struct caller *c = arg;
	uint64_t calls, fails = 0, sum = 0;

	barrier(c->nthreads);
	c->start = clock_ns();
	switch (c->scheme) {
	case BASE:
		CALL_LOOP(stamp_base());
		break;
	case CLOCK_UNDER_LOCK:
		CALL_LOOP(stamp_clock_under_lock());
		break;
	case PER_CPU_FLOOR:
		CALL_LOOP(stamp_per_cpu_floor(c->idx));
		break;
	case SERIES:
		CALL_LOOP(stamp_series(&fails));
		break;
	default:
		CALL_LOOP(stamp_atomic_inc());
		break;
	}
	c->end = clock_ns();
	/* The first one done stops the other: the calls measured overlap. */
	__atomic_store_n(&stop_line.stop, 1, __ATOMIC_RELAXED);
	c->calls = calls;
	c->fails = fails;
	sink += sum;
	return NULL;
}

/* Run @fn in @n threads, thread i pinned to cpus[i]; each gets @args[i]. */
static void run_pinned(void *(*fn)(void *), void *args, size_t size, int n)
{
	pthread_t tid[2];
	pthread_attr_t attr;
	cpu_set_t set;
	int i, err;

	start_line.ready = 0;
	stop_line.stop = 0;
	for (i = 0; i < n; i++) {
		CPU_ZERO(&set);
		CPU_SET(cpus[i], &set);
		pthread_attr_init(&attr);
		pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
		err = pthread_create(&tid[i], &attr, fn, (char *)args + i * size);
		pthread_attr_destroy(&attr);
		if (err) {
			errno = err;
			die("pthread_create");
		}
	}
	for (i = 0; i < n; i++)
		pthread_join(tid[i], NULL);
}

struct stamp_result {
	double ns_per_call, fail_per_call, overlap;
};

static struct stamp_result run_stamp(enum scheme s, int nthreads, unsigned int gap,
				     uint64_t n)
{
	struct caller c[2] = { 0 };
	uint64_t ns = 0, calls = 0, fails = 0, first_end, last_end, first, last;
	struct stamp_result r;
	int i;

	for (i = 0; i < nthreads; i++)
		c[i] = (struct caller){ .idx = i, .nthreads = nthreads,
					.scheme = s, .gap = gap, .max_calls = n };
	run_pinned(caller_fn, c, sizeof(c[0]), nthreads);
	first = last = c[0].start;
	first_end = last_end = c[0].end;
	for (i = 0; i < nthreads; i++) {
		ns += c[i].end - c[i].start;
		calls += c[i].calls;
		fails += c[i].fails;
		first = c[i].start < first ? c[i].start : first;
		last = c[i].start > last ? c[i].start : last;
		first_end = c[i].end < first_end ? c[i].end : first_end;
		last_end = c[i].end > last_end ? c[i].end : last_end;
	}
	r.ns_per_call = (double)ns / calls;
	r.fail_per_call = (double)fails / calls;
	/* The share of the run during which every thread was calling. */
	r.overlap = first_end > last ? (double)(first_end - last) / (last_end - first) : 0;
	return r;
}

/* The ping-pong: thread 0 serves odd values, thread 1 returns even ones. */
struct pinger {
	int idx;
	uint64_t trips, ns;
};

static void *pinger_fn(void *arg)
{
	struct pinger *p = arg;
	uint64_t i, start;

	barrier(2);
	start = clock_ns();
	for (i = 0; i < p->trips; i++) {
		if (p->idx == 0) {
			__atomic_store_n(&ball.v, 2 * i + 1, __ATOMIC_RELEASE);
			while (__atomic_load_n(&ball.v, __ATOMIC_ACQUIRE) != 2 * i + 2)
				;
		} else {
			while (__atomic_load_n(&ball.v, __ATOMIC_ACQUIRE) != 2 * i + 1)
				;
			__atomic_store_n(&ball.v, 2 * i + 2, __ATOMIC_RELEASE);
		}
	}
	p->ns = clock_ns() - start;
	return NULL;
}

static double run_transfer(uint64_t trips)
{
	struct pinger p[2] = { { 0, trips, 0 }, { 1, trips, 0 } };

	ball.v = 0;
	run_pinned(pinger_fn, p, sizeof(p[0]), 2);
	return (double)p[0].ns / trips / 2;
}

/* What a listener process counted, in memory shared with the parent. */
struct listen_counts {
	uint64_t received, enobufs;
	int error;
};

static int connector_op(int sock, enum proc_cn_mcast_op op)
{
	union {
		char buf[NLMSG_SPACE(sizeof(struct cn_msg) + sizeof(uint32_t))];
		struct nlmsghdr nlh;
	} req = { 0 };
	uint32_t v = op;
	struct cn_msg *cn;

	req.nlh.nlmsg_len = NLMSG_LENGTH(sizeof(*cn) + sizeof(v));
	req.nlh.nlmsg_type = NLMSG_DONE;
	req.nlh.nlmsg_pid = getpid();
	cn = NLMSG_DATA(&req.nlh);
	cn->id.idx = CN_IDX_PROC;
	cn->id.val = CN_VAL_PROC;
	cn->len = sizeof(v);
	memcpy(cn->data, &v, sizeof(v));
	return send(sock, &req, req.nlh.nlmsg_len, 0) < 0 ? -errno : 0;
}

/* Count the messages queued, without blocking; 0 when none is left. */
static uint64_t drain(int sock, uint64_t *enobufs, int flags)
{
	union {
		char buf[65536];
		struct nlmsghdr align;
	} u;
	struct nlmsghdr *nlh;
	uint64_t n = 0;
	ssize_t len;

	len = recv(sock, u.buf, sizeof(u.buf), flags);
	if (len < 0) {
		if (errno == ENOBUFS)
			(*enobufs)++;
		return errno == ENOBUFS;
	}
	for (nlh = &u.align; NLMSG_OK(nlh, len); nlh = NLMSG_NEXT(nlh, len))
		n += nlh->nlmsg_type == NLMSG_DONE;
	return n;
}

/*
 * The listener: subscribe, say so on @ready, count every message until @ctl
 * is closed, unsubscribe (so that the kernel's listener count goes back).
 * Errors are reported as a negative errno in @out->error.
 */
static void listener(int ready, int ctl, struct listen_counts *out)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC };
	struct pollfd pfd[2];
	uint64_t received = 0, enobufs = 0, got;
	int size = RCVBUF_BYTES, sock, err;
	char c = 1;

	sock = socket(PF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_CONNECTOR);
	if (sock < 0 || setsockopt(sock, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) ||
	    bind(sock, (struct sockaddr *)&sa, sizeof(sa))) {
		out->error = -errno;
		_exit(1);
	}
	err = connector_op(sock, PROC_CN_MCAST_LISTEN);
	pfd[0] = (struct pollfd){ .fd = sock, .events = POLLIN };
	if (!err && poll(pfd, 1, ACK_TIMEOUT_MS) != 1)
		err = -ETIMEDOUT;
	/* The subscription's ack, not an event. */
	if (!err && !drain(sock, &enobufs, 0))
		err = -EPROTO;
	if (err) {
		out->error = err;
		_exit(1);
	}
	if (write(ready, &c, 1) != 1)
		_exit(1);
	pfd[1] = (struct pollfd){ .fd = ctl, .events = POLLIN };
	for (;;) {
		if (poll(pfd, 2, -1) < 0 && errno != EINTR)
			_exit(1);
		if (pfd[0].revents)
			received += drain(sock, &enobufs, MSG_DONTWAIT);
		if (pfd[1].revents)
			break;
	}
	while ((got = drain(sock, &enobufs, MSG_DONTWAIT)))
		received += got;
	connector_op(sock, PROC_CN_MCAST_IGNORE);
	out->received = received;
	out->enobufs = enobufs;
	_exit(0);
}

static void pin_self(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity");
}

struct listener_proc {
	pid_t pid;
	int ctl;
};

/* Start a listener on the second core; pid 0 when it could not subscribe. */
static struct listener_proc start_listener(struct listen_counts *counts)
{
	struct listener_proc l = { 0, -1 };
	int rp[2], cp[2], status;
	char c;

	memset(counts, 0, sizeof(*counts));
	if (pipe2(rp, O_CLOEXEC) || pipe2(cp, O_CLOEXEC))
		die("pipe");
	l.pid = fork();
	if (l.pid < 0)
		die("fork");
	if (l.pid == 0) {
		close(rp[0]);
		close(cp[1]);
		pin_self(cpus[1]);
		listener(rp[1], cp[0], counts);
	}
	close(rp[1]);
	close(cp[0]);
	l.ctl = cp[1];
	if (read(rp[0], &c, 1) != 1) {
		waitpid(l.pid, &status, 0);
		close(l.ctl);
		l.pid = 0;
	}
	close(rp[0]);
	return l;
}

static void stop_listener(struct listener_proc *l)
{
	int status;

	close(l->ctl);
	if (waitpid(l->pid, &status, 0) != l->pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		fprintf(stderr, "stamp_native: the listener failed\n");
		exit(1);
	}
}

static const char *exec_path;

/* ns per event of @iters fork, exec, exit on the first core. */
static double run_events(uint64_t iters)
{
	char *const argv[] = { (char *)exec_path, "--exit", NULL };
	char *const envp[] = { NULL };
	uint64_t i, start;
	int status;
	pid_t pid;

	start = clock_ns();
	for (i = 0; i < iters; i++) {
		pid = fork();
		if (pid == 0) {
			execve(exec_path, argv, envp);
			_exit(127);
		}
		if (pid < 0 || waitpid(pid, &status, 0) != pid ||
		    !WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "stamp_native: fork/exec/exit of %s failed\n",
				exec_path);
			exit(1);
		}
	}
	return (double)(clock_ns() - start) / (3 * iters);
}

/* P(B <= k) for B ~ binomial(n, 1/2). */
static double binom_cdf(int n, int k)
{
	double p = 1, sum = 0;
	int i;

	for (i = 0; i < n; i++)
		p /= 2;
	for (i = 0; i <= k; i++) {
		sum += p;
		p = p * (n - i) / (i + 1);
	}
	return sum;
}

/*
 * The 1-based rank l of the lower end of the 95% interval of the median of
 * n values, [x(l), x(n+1-l)], the largest l with P(B <= l-1) <= 0.025, so
 * that the interval covers the median with probability 1 - 2 P(B <= l-1)
 * >= 0.95; 0 when even [min, max] does not (n < 6).
 */
static int ci_rank(int n)
{
	int l = 0;

	while (l + 1 <= (n + 1) / 2 && binom_cdf(n, l) <= 0.025)
		l++;
	return l;
}

struct summary {
	double median, lo, hi;
	int n, has_ci;
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static struct summary summarize(const double *x, int n)
{
	double s[MAX_ROUNDS];
	struct summary r = { .n = n };
	int l = ci_rank(n);

	memcpy(s, x, n * sizeof(*x));
	qsort(s, n, sizeof(*s), cmp_double);
	r.median = (s[(n - 1) / 2] + s[n / 2]) / 2;
	r.has_ci = l > 0;
	r.lo = l ? s[l - 1] : r.median;
	r.hi = l ? s[n - l] : r.median;
	return r;
}

static double min_of(const double *x, int n)
{
	double m = x[0];
	int i;

	for (i = 1; i < n; i++)
		m = x[i] < m ? x[i] : m;
	return m;
}

static void print_ci(const char *name, struct summary s)
{
	if (s.has_ci)
		printf(" %s=%.2f ci_low=%.2f ci_high=%.2f", name, s.median, s.lo, s.hi);
	else
		printf(" %s=%.2f ci_low=none ci_high=none", name, s.median);
}

static void read_line(const char *path, const char *key, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	char line[512];

	snprintf(buf, size, "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *v = line;

		if (key) {
			if (strncmp(line, key, strlen(key)))
				continue;
			v = strchr(line, ':');
			if (!v)
				continue;
			v += 2;
		}
		v[strcspn(v, "\n")] = 0;
		snprintf(buf, size, "%s", v);
		break;
	}
	fclose(f);
}

static void print_loadavg(const char *when)
{
	char buf[128];

	read_line("/proc/loadavg", NULL, buf, sizeof(buf));
	printf("stamp_native: loadavg_%s=\"%s\"\n", when, buf);
}

static void usage(void)
{
	fprintf(stderr, "usage: stamp_native [-r rounds] [-n calls] [-g gap] [-p round-trips] "
		"[-e iterations] [-x exec-path] [-P stamp,transfer,events] [-f]\n");
	exit(2);
}

static uint64_t parse_num(const char *s, uint64_t max)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || !*s || !v || v > max)
		usage();
	return v;
}

/* The first two CPUs this process may run on. */
static void pick_cpus(void)
{
	cpu_set_t set;
	int cpu, n = 0;

	if (sched_getaffinity(0, sizeof(set), &set))
		die("sched_getaffinity");
	for (cpu = 0; cpu < CPU_SETSIZE && n < 2; cpu++)
		if (CPU_ISSET(cpu, &set))
			cpus[n++] = cpu;
	if (n < 2) {
		fprintf(stderr, "stamp_native: needs two CPUs\n");
		exit(1);
	}
}

/* Next to this program, or itself with --exit when exit_at_once is not there. */
static const char *default_exec(void)
{
	static char path[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", path, sizeof(path) - 32);
	char *slash;

	if (len > 0) {
		path[len] = 0;
		slash = strrchr(path, '/');
		if (slash) {
			snprintf(slash + 1, 32, "exit_at_once");
			if (!access(path, X_OK))
				return path;
		}
	}
	return "/proc/self/exe";
}

/* The hypervisor's CPUID signature ("KVMKVMKVM"), or none. */
static void hypervisor(char *buf, size_t size)
{
	snprintf(buf, size, "none");
#if defined(__x86_64__) || defined(__i386__)
	{
		unsigned int a, b, c, d, sig[3];

		__cpuid(1, a, b, c, d);
		if (!(c & (1U << 31)))
			return;
		__cpuid(0x40000000, a, sig[0], sig[1], sig[2]);
		snprintf(buf, size, "%.12s", (char *)sig);
		buf[strcspn(buf, " ")] = 0;
	}
#endif
}

/*
 * The stamp's configurations: one core; two cores calling back to back,
 * where the domain's line is fought over (saturation); two cores with
 * local work between their calls, where each call finds the line last
 * written by the other core, as events spread over CPUs do.
 */
enum { ONE, TWO, TWO_SPACED, NR_CONFIGS };
static const int config_threads[NR_CONFIGS] = { 1, 2, 2 };
static unsigned int gap_steps = 200;

static unsigned int config_gap(int k)
{
	return k == TWO_SPACED ? gap_steps : 0;
}

/* Spaced calls take longer: a tenth as many. */
static uint64_t config_calls(int k, uint64_t calls)
{
	return k == TWO_SPACED ? calls / 10 + 1 : calls;
}

static double stamp_ns[NR_SCHEMES][NR_CONFIGS][MAX_ROUNDS];
static double stamp_fail[NR_SCHEMES][NR_CONFIGS][MAX_ROUNDS];
static double stamp_overlap[NR_SCHEMES][NR_CONFIGS][MAX_ROUNDS];
static double transfer_ns[MAX_ROUNDS], event_ns[2][MAX_ROUNDS];
static const char *const listener_name[2] = { "none", "one" };

int main(int argc, char **argv)
{
	uint64_t calls = 1000000, trips = 200000, iters = 2000;
	int rounds = 21, r, i, k, s, opt, listener_ok = -1;
	bool do_stamp = true, do_transfer = true, do_events = true, fifo = false;
	struct summary sm[NR_SCHEMES][NR_CONFIGS], tr, ev[2];
	struct listen_counts *counts;
	char model[512], hyp[64], cs[512];
	struct utsname u;

	if (argc == 2 && !strcmp(argv[1], "--exit"))
		_exit(0);
	exec_path = default_exec();
	while ((opt = getopt(argc, argv, "r:n:g:p:e:x:P:f")) != -1) {
		switch (opt) {
		case 'f':
			fifo = true;
			break;
		case 'g':
			gap_steps = parse_num(optarg, 1000000);
			break;
		case 'r':
			rounds = parse_num(optarg, MAX_ROUNDS);
			break;
		case 'n':
			calls = parse_num(optarg, 1000000000);
			break;
		case 'p':
			trips = parse_num(optarg, 1000000000);
			break;
		case 'e':
			iters = parse_num(optarg, 10000000);
			break;
		case 'x':
			exec_path = optarg;
			break;
		case 'P':
			do_stamp = strstr(optarg, "stamp");
			do_transfer = strstr(optarg, "transfer");
			do_events = strstr(optarg, "events");
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	pick_cpus();
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (fifo) {
		struct sched_param sp = { .sched_priority = 1 };

		/* Inherited by the threads, the children and the listener. */
		if (sched_setscheduler(0, SCHED_FIFO, &sp))
			die("sched_setscheduler(SCHED_FIFO)");
	}

	counts = mmap(NULL, sizeof(*counts), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (counts == MAP_FAILED)
		die("mmap");
	read_line("/proc/cpuinfo", "model name", model, sizeof(model));
	read_line("/sys/devices/system/clocksource/clocksource0/current_clocksource",
		  NULL, cs, sizeof(cs));
	hypervisor(hyp, sizeof(hyp));
	uname(&u);
	printf("stamp_native: cpu=\"%s\" hypervisor=%s cpus=%d,%d online=%ld kernel=%s "
	       "clocksource=%s rounds=%d calls=%llu gap=%u trips=%llu iterations=%llu "
	       "exec=%s sched=%s\n",
	       model, hyp, cpus[0], cpus[1], sysconf(_SC_NPROCESSORS_ONLN), u.release, cs,
	       rounds, (unsigned long long)calls, gap_steps, (unsigned long long)trips,
	       (unsigned long long)iters, exec_path, fifo ? "fifo" : "other");
	print_loadavg("start");

	/* One round unmeasured: page faults, the vDSO's first call, frequencies. */
	if (do_stamp)
		for (s = 0; s < NR_SCHEMES; s++)
			run_stamp(s, 2, 0, calls / 10);
	if (do_transfer)
		run_transfer(trips / 10);
	if (do_events) {
		pin_self(cpus[0]);
		run_events(iters / 10 + 1);
	}

	for (r = 0; r < rounds; r++) {
		if (do_stamp) {
			for (k = 0; k < NR_CONFIGS; k++) {
				for (i = 0; i < NR_SCHEMES; i++) {
					struct stamp_result res;

					s = (i + r) % NR_SCHEMES;
					res = run_stamp(s, config_threads[k], config_gap(k),
							config_calls(k, calls));
					stamp_ns[s][k][r] = res.ns_per_call;
					stamp_fail[s][k][r] = res.fail_per_call;
					stamp_overlap[s][k][r] = res.overlap;
					printf("stamp_native: round=%d part=stamp scheme=%s "
					       "threads=%d gap=%u ns_per_call=%.2f "
					       "fail_per_call=%.4f overlap=%.3f\n",
					       r + 1, scheme_name[s], config_threads[k],
					       config_gap(k), res.ns_per_call,
					       res.fail_per_call, res.overlap);
				}
			}
		}
		if (do_transfer) {
			transfer_ns[r] = run_transfer(trips);
			printf("stamp_native: round=%d part=transfer ns_per_transfer=%.2f\n",
			       r + 1, transfer_ns[r]);
		}
		if (!do_events)
			continue;
		pin_self(cpus[0]);
		for (i = 0; i < 2; i++) {
			int with = (i + r) % 2;
			struct listener_proc l = { 0, -1 };
			uint64_t expected = 0;

			if (with) {
				l = start_listener(counts);
				if (!l.pid) {
					if (listener_ok < 0)
						printf("stamp_native: events listener=one "
						       "unavailable: %s\n",
						       strerror(-counts->error));
					listener_ok = 0;
					continue;
				}
				listener_ok = 1;
				expected = 3 * iters;
			}
			event_ns[with][r] = run_events(iters);
			if (with)
				stop_listener(&l);
			printf("stamp_native: round=%d part=events listener=%s ns_per_event=%.2f "
			       "received=%llu expected=%llu enobufs=%llu\n", r + 1,
			       listener_name[with], event_ns[with][r],
			       (unsigned long long)(with ? counts->received : 0),
			       (unsigned long long)expected,
			       (unsigned long long)(with ? counts->enobufs : 0));
		}
	}
	print_loadavg("end");

	if (do_stamp) {
		for (k = 0; k < NR_CONFIGS; k++) {
			for (s = 0; s < NR_SCHEMES; s++) {
				sm[s][k] = summarize(stamp_ns[s][k], rounds);
				printf("stamp_native: scheme=%s threads=%d gap=%u", scheme_name[s],
				       config_threads[k], config_gap(k));
				print_ci("ns_per_call", sm[s][k]);
				printf(" fail_per_call=%.4f overlap_min=%.3f rounds=%d\n",
				       summarize(stamp_fail[s][k], rounds).median,
				       min_of(stamp_overlap[s][k], rounds), rounds);
			}
		}
	}
	if (do_transfer) {
		tr = summarize(transfer_ns, rounds);
		printf("stamp_native: transfer");
		print_ci("ns_per_transfer", tr);
		printf(" rounds=%d\n", rounds);
	}
	if (do_events) {
		for (i = 0; i < 2; i++) {
			if (i && listener_ok != 1)
				break;
			ev[i] = summarize(event_ns[i], rounds);
			printf("stamp_native: events listener=%s", listener_name[i]);
			print_ci("ns_per_event", ev[i]);
			printf(" rounds=%d\n", rounds);
		}
	}
	if (do_stamp && do_events && listener_ok == 1) {
		for (k = 0; k < NR_CONFIGS; k++) {
			for (s = CLOCK_UNDER_LOCK; s < NR_SCHEMES; s++) {
				double d[MAX_ROUNDS], f[4], lo, hi;
				struct summary x;

				for (r = 0; r < rounds; r++)
					d[r] = stamp_ns[s][k][r] - stamp_ns[BASE][k][r];
				x = summarize(d, rounds);
				f[0] = x.lo / ev[1].lo;
				f[1] = x.lo / ev[1].hi;
				f[2] = x.hi / ev[1].lo;
				f[3] = x.hi / ev[1].hi;
				qsort(f, 4, sizeof(*f), cmp_double);
				lo = f[0];
				hi = f[3];
				printf("stamp_native: overhead scheme=%s threads=%d gap=%u",
				       scheme_name[s], config_threads[k], config_gap(k));
				print_ci("extra_ns", x);
				if (x.has_ci && ev[1].has_ci)
					printf(" fraction=%.6f fraction_low=%.6f "
					       "fraction_high=%.6f",
					       x.median / ev[1].median, lo, hi);
				else
					printf(" fraction=%.6f fraction_low=none "
					       "fraction_high=none",
					       x.median / ev[1].median);
				printf(" rounds=%d\n", rounds);
			}
		}
	}

	printf("\n| figure | median | 95%% CI of the median | rounds |\n");
	printf("|--------|--------|-----------------------|--------|\n");
	if (do_stamp)
		for (k = 0; k < NR_CONFIGS; k++)
			for (s = 0; s < NR_SCHEMES; s++)
				printf("| %s, %d thread%s%s, ns/call | %.2f | %.2f-%.2f | %d |\n",
				       scheme_name[s], config_threads[k],
				       config_threads[k] > 1 ? "s" : "",
				       k == TWO_SPACED ? ", spaced" : "", sm[s][k].median,
				       sm[s][k].lo, sm[s][k].hi, rounds);
	if (do_transfer)
		printf("| one line transfer between cores %d and %d, ns | %.2f | "
		       "%.2f-%.2f | %d |\n",
		       cpus[0], cpus[1], tr.median, tr.lo, tr.hi, rounds);
	if (do_events)
		for (i = 0; i < 2 && (!i || listener_ok == 1); i++)
			printf("| fork/exec/exit, %s listener, ns/event | %.0f | "
			       "%.0f-%.0f | %d |\n",
			       listener_name[i], ev[i].median, ev[i].lo, ev[i].hi, rounds);
	return 0;
}

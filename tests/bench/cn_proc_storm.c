// SPDX-License-Identifier: GPL-2.0
/*
 * cn_proc_storm: a fork/exec/exit storm with one process events listener
 * attached, for `make bench`. Prints how many events per second the
 * listener received, and how many the workers made.
 *
 * Each round, the workers fork a child that execs /proc/self/exe --exit and
 * reap it, as fast as they can, for the round's seconds, while this process
 * reads and counts the events it is sent. A first round warms up and is not
 * counted.
 *
 * The listener's state (-l, which may be given more than once: then each
 * state in turn, with a socket of its own) is what the kernel's send path
 * does per event; the kernel stamps every event in each of them:
 *   all      every event, with a 64 MiB receive buffer (the default);
 *   exits    exits only, the filter of PROC_CN_MCAST_LISTEN with a struct
 *            proc_input (Linux 6.6 and later): the kernel makes and stamps
 *            every event, and cn_filter() drops all but the exits; a kernel
 *            that sends another kind after the filter is set fails the run;
 *   overrun  every event, with a receive buffer of SO_RCVBUF 4096 bytes
 *            (without FORCE, so the kernel's 8 KiB: about ten messages),
 *            read every 100 ms only, so that the listener falls behind and
 *            the kernel drops messages: ENOBUFS, once per overrun.
 *
 *   storm: workers=<n> seconds=<s> rounds=<r> listener=<state>
 *   storm: round=<r> events=<n> ns=<elapsed> rate=<events/s> busy=<%> enobufs=<n> made=<n>
 *   storm: rate=<median of the rounds' rates> enobufs=<sum> listener=<state> made_rate=<median>
 *
 * events and rate count the messages received; made counts the events the
 * workers' children made (fork, exec and exit: 3 each), made_rate their
 * rate, the storm's throughput whatever the listener receives. Rates are
 * printed to a tenth of an event per second; busy is the share of all
 * cpus' time not idle during the round, from /proc/stat.
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <linux/cn_proc.h>

#define NSEC_PER_SEC	1000000000ULL
#define MAX_ROUNDS	64
#define MAX_WORKERS	256
#define RCVBUF_BYTES	(64 << 20)
#define OVERRUN_RCVBUF	4096
#define OVERRUN_READ_MS	100
#define ACK_TIMEOUT_MS	5000
#define MAX_STATES	8

static unsigned int workers = 4, seconds = 5, rounds = 3, warmup_seconds = 2;

enum listener_state { LISTEN_ALL, LISTEN_EXITS, LISTEN_OVERRUN };
static const char *const state_name[] = { "all", "exits", "overrun" };
static enum listener_state state = LISTEN_ALL;
/* In state exits, from when the filter is set: messages that are not exits. */
static bool check_filter;
static uint64_t unfiltered;

/* Shared with the workers: the stop flag, and each one's cycles on its own line. */
struct shared {
	int stop;
	struct {
		uint64_t cycles;
	} __attribute__((aligned(64))) worker[MAX_WORKERS];
};

static void die(const char *what)
{
	fprintf(stderr, "storm: %s: %s\n", what, strerror(errno));
	exit(1);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/* A control message to the connector: @len bytes of @data, 8 at most. */
static void connector_send(int sock, const void *data, uint16_t len)
{
	union {
		char buf[NLMSG_SPACE(sizeof(struct cn_msg) + 2 * sizeof(uint32_t))];
		struct nlmsghdr nlh;
	} req = { 0 };
	struct cn_msg *cn;

	req.nlh.nlmsg_len = NLMSG_LENGTH(sizeof(*cn) + len);
	req.nlh.nlmsg_type = NLMSG_DONE;
	cn = NLMSG_DATA(&req.nlh);
	cn->id.idx = CN_IDX_PROC;
	cn->id.val = CN_VAL_PROC;
	cn->len = len;
	memcpy(cn->data, data, len);
	if (send(sock, &req, req.nlh.nlmsg_len, 0) < 0)
		die("send PROC_CN_MCAST_LISTEN");
}

/* Subscribe to every event; the first message is then the ack. */
static int listen_proc_events(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC };
	uint32_t op = PROC_CN_MCAST_LISTEN;
	int size = RCVBUF_BYTES;
	int sock;

	sock = socket(PF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_CONNECTOR);
	if (sock < 0)
		die("socket(NETLINK_CONNECTOR)");
	if (state == LISTEN_OVERRUN) {
		/* The kernel doubles it, and raises it to its minimum. */
		size = OVERRUN_RCVBUF;
		if (setsockopt(sock, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size)))
			die("SO_RCVBUF");
	} else if (setsockopt(sock, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size))) {
		die("SO_RCVBUFFORCE");
	}
	if (bind(sock, (struct sockaddr *)&sa, sizeof(sa)))
		die("bind");
	connector_send(sock, &op, sizeof(op));
	return sock;
}

/*
 * Narrow the subscription to exits. Not in the first subscription: its ack
 * is a message of kind PROC_EVENT_NONE, which the filter drops as well, so
 * the ack would never come. A second PROC_CN_MCAST_LISTEN only changes the
 * filter (the kernel counts one listener still).
 */
static void filter_exits(int sock)
{
#ifdef PROC_EVENT_ALL	/* uapi headers of 6.6 or later, with struct proc_input */
	struct proc_input in = {
		.mcast_op = PROC_CN_MCAST_LISTEN,
		.event_type = PROC_EVENT_EXIT,
	};

	connector_send(sock, &in, sizeof(in));
#else
	(void)sock;
	fprintf(stderr, "storm: -l exits: these uapi headers have no struct proc_input (Linux 6.6)\n");
	exit(2);
#endif
}

/* In state exits, count the messages of another kind than exit. */
static void check_kind(const struct nlmsghdr *nlh)
{
	const struct cn_msg *cn = NLMSG_DATA(nlh);
	struct proc_event ev;

	if (!check_filter || nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*cn) + sizeof(ev.what)))
		return;
	/* the payload is only 4-byte aligned */
	memcpy(&ev.what, cn->data, sizeof(ev.what));
	unfiltered += ev.what != PROC_EVENT_EXIT;
}

/*
 * Count queued messages without blocking, a bounded number of reads so that
 * a listener that falls behind still sees its deadline. ENOBUFS means some
 * were lost.
 */
static uint64_t drain(int sock, uint64_t *enobufs)
{
	union {
		char buf[65536];
		struct nlmsghdr align;
	} u;
	struct nlmsghdr *nlh;
	uint64_t n = 0;
	unsigned int reads;
	ssize_t len;

	for (reads = 0; reads < 64; reads++) {
		len = recv(sock, u.buf, sizeof(u.buf), MSG_DONTWAIT);
		if (len < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ENOBUFS) {
				(*enobufs)++;
				continue;
			}
			if (errno == EAGAIN)
				return n;
			die("recv");
		}
		for (nlh = &u.align; NLMSG_OK(nlh, len); nlh = NLMSG_NEXT(nlh, len)) {
			if (nlh->nlmsg_type != NLMSG_DONE)
				continue;
			n++;
			check_kind(nlh);
		}
	}
	return n;
}

/* Everything queued, for the end of a round. */
static uint64_t drain_all(int sock, uint64_t *enobufs)
{
	uint64_t n = 0, got;

	while ((got = drain(sock, enobufs)))
		n += got;
	return n;
}

/*
 * Read until @until: as messages come, or in state overrun every
 * OVERRUN_READ_MS only, a listener too slow for its small buffer (it sleeps
 * rather than polls, as an overrun would wake a poll at once).
 */
static uint64_t wait_events(int sock, uint64_t until, uint64_t *enobufs)
{
	struct pollfd pfd = { .fd = sock, .events = POLLIN };
	uint64_t n = 0, t, ns;
	struct timespec ts;

	while ((t = now_ns()) < until) {
		if (state == LISTEN_OVERRUN) {
			ns = until - t < OVERRUN_READ_MS * 1000000ULL ?
			     until - t : OVERRUN_READ_MS * 1000000ULL;
			ts.tv_sec = ns / NSEC_PER_SEC;
			ts.tv_nsec = ns % NSEC_PER_SEC;
			nanosleep(&ts, NULL);
		} else if (poll(&pfd, 1, (until - t) / 1000000 + 1) < 0 && errno != EINTR) {
			die("poll");
		}
		n += drain(sock, enobufs);
	}
	return n;
}

/* Jiffies of all cpus: in total, and idle (idle and iowait). */
static void cpu_times(uint64_t *total, uint64_t *idle)
{
	unsigned long long v[8] = { 0 };
	FILE *f = fopen("/proc/stat", "r");
	int i;

	if (!f || fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu",
			 &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) != 8)
		die("/proc/stat");
	fclose(f);
	for (*total = 0, i = 0; i < 8; i++)
		*total += v[i];
	*idle = v[3] + v[4];
}

static void worker(struct shared *sh, unsigned int w)
{
	uint64_t cycles = 0;
	pid_t pid;
	int status;

	while (!__atomic_load_n(&sh->stop, __ATOMIC_RELAXED)) {
		pid = fork();
		if (pid == 0) {
			execl("/proc/self/exe", "cn_proc_storm", "--exit", (char *)NULL);
			_exit(127);
		}
		/* A child whose exec failed would make this a fork/exit storm. */
		if (pid < 0 || waitpid(pid, &status, 0) != pid ||
		    !WIFEXITED(status) || WEXITSTATUS(status))
			_exit(1);
		__atomic_store_n(&sh->worker[w].cycles, ++cycles, __ATOMIC_RELAXED);
	}
	_exit(0);
}

/*
 * One round: tenths of events per second received while the workers ran;
 * @made, the events their children made.
 */
static uint64_t round_rate(int sock, struct shared *sh, unsigned int secs,
			   uint64_t *events, uint64_t *elapsed, unsigned int *busy,
			   uint64_t *enobufs, uint64_t *made)
{
	uint64_t start, end, total0, idle0, total1, idle1;
	pid_t pids[workers];
	unsigned int i;
	int status;

	__atomic_store_n(&sh->stop, 0, __ATOMIC_RELAXED);
	for (i = 0; i < workers; i++)
		sh->worker[i].cycles = 0;
	drain_all(sock, enobufs);
	cpu_times(&total0, &idle0);
	start = now_ns();
	for (i = 0; i < workers; i++) {
		pids[i] = fork();
		if (pids[i] == 0) {
			close(sock);
			worker(sh, i);
		}
		if (pids[i] < 0)
			die("fork");
	}
	*events = wait_events(sock, start + secs * NSEC_PER_SEC, enobufs);
	__atomic_store_n(&sh->stop, 1, __ATOMIC_RELAXED);
	*events += drain_all(sock, enobufs);
	end = now_ns();
	cpu_times(&total1, &idle1);
	*elapsed = end - start;
	*busy = total1 > total0 ?
		100 - 100 * (idle1 - idle0) / (total1 - total0) : 0;

	*made = 0;
	for (i = 0; i < workers; i++) {
		if (waitpid(pids[i], &status, 0) != pids[i] || !WIFEXITED(status) ||
		    WEXITSTATUS(status)) {
			fprintf(stderr, "storm: a worker failed\n");
			exit(1);
		}
		*made += 3 * sh->worker[i].cycles;
	}
	return *events * 10 * NSEC_PER_SEC / *elapsed;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void usage(void)
{
	fprintf(stderr, "usage: cn_proc_storm [-w workers] [-t seconds] [-r rounds] "
		"[-l all|exits|overrun]...\n");
	exit(2);
}

static unsigned int parse_num(const char *s, unsigned int max)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || !*s || !v || v > max)
		usage();
	return v;
}

/*
 * The subscription's ack must report no error. Events can come before it:
 * the socket is in the group from bind() on, and an earlier listener of
 * this run may still be subscribed (or the kernel may not yet have seen it
 * go), so events of processes that are still exiting reach this socket
 * too. They are skipped; the rounds count only what comes after the ack.
 */
static void wait_ack(int sock)
{
	struct pollfd pfd = { .fd = sock, .events = POLLIN };
	union {
		char buf[4096];
		struct nlmsghdr align;
	} u;
	struct proc_event ev;
	struct cn_msg *cn;
	ssize_t len;

	for (;;) {
		if (poll(&pfd, 1, ACK_TIMEOUT_MS) <= 0) {
			fprintf(stderr, "storm: no ack within %d ms\n", ACK_TIMEOUT_MS);
			exit(1);
		}
		len = recv(sock, u.buf, sizeof(u.buf), 0);
		if (len < 0)
			die("recv ack");
		cn = NLMSG_DATA(&u.align);
		if (!NLMSG_OK(&u.align, len) || cn->len < sizeof(ev)) {
			fprintf(stderr, "storm: a message before the ack is not a process event\n");
			exit(1);
		}
		/* the payload is only 4-byte aligned */
		memcpy(&ev, cn->data, sizeof(ev));
		if (ev.what == PROC_EVENT_NONE)
			break;
	}
	if (ev.event_data.ack.err) {
		fprintf(stderr, "storm: subscription refused (err %u)\n", ev.event_data.ack.err);
		exit(1);
	}
}

static enum listener_state parse_state(const char *s)
{
	unsigned int i;

	for (i = 0; i < sizeof(state_name) / sizeof(state_name[0]); i++)
		if (!strcmp(s, state_name[i]))
			return i;
	usage();
	return LISTEN_ALL;
}

static uint64_t median_of(uint64_t *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	return (v[(n - 1) / 2] + v[n / 2]) / 2;
}

/* One listener state: subscribe, warm up, the rounds, the result line. */
static int storm(struct shared *sh)
{
	uint64_t rates[MAX_ROUNDS], made_rates[MAX_ROUNDS], events, elapsed, made;
	uint64_t median, made_median, enobufs = 0;
	unsigned int r, busy;
	int sock;

	check_filter = false;
	unfiltered = 0;
	sock = listen_proc_events();
	wait_ack(sock);
	if (state == LISTEN_EXITS) {
		filter_exits(sock);
		/* What was queued before the filter was set may be of any kind. */
		drain_all(sock, &enobufs);
		check_filter = true;
	}

	printf("storm: workers=%u seconds=%u rounds=%u listener=%s\n", workers,
	       seconds, rounds, state_name[state]);
	round_rate(sock, sh, warmup_seconds, &events, &elapsed, &busy, &enobufs, &made);
	enobufs = 0;
	for (r = 0; r < rounds; r++) {
		uint64_t lost = enobufs;

		rates[r] = round_rate(sock, sh, seconds, &events, &elapsed,
				      &busy, &enobufs, &made);
		made_rates[r] = made * 10 * NSEC_PER_SEC / elapsed;
		printf("storm: round=%u events=%llu ns=%llu rate=%llu.%llu busy=%u%% enobufs=%llu made=%llu\n",
		       r + 1, (unsigned long long)events,
		       (unsigned long long)elapsed,
		       (unsigned long long)rates[r] / 10,
		       (unsigned long long)rates[r] % 10, busy,
		       (unsigned long long)(enobufs - lost),
		       (unsigned long long)made);
	}
	close(sock);
	if (unfiltered) {
		fprintf(stderr, "storm: listener=exits received %llu messages of other kinds: "
			"the kernel does not filter\n", (unsigned long long)unfiltered);
		return 1;
	}
	median = median_of(rates, rounds);
	made_median = median_of(made_rates, rounds);
	printf("storm: rate=%llu.%llu enobufs=%llu listener=%s made_rate=%llu.%llu\n",
	       (unsigned long long)median / 10, (unsigned long long)median % 10,
	       (unsigned long long)enobufs, state_name[state],
	       (unsigned long long)made_median / 10,
	       (unsigned long long)made_median % 10);
	return 0;
}

int main(int argc, char **argv)
{
	enum listener_state states[MAX_STATES];
	unsigned int nstates = 0, i;
	struct shared *sh;
	int opt;

	if (argc == 2 && !strcmp(argv[1], "--exit"))
		_exit(0);
	while ((opt = getopt(argc, argv, "w:t:r:l:")) != -1) {
		switch (opt) {
		case 'w':
			workers = parse_num(optarg, MAX_WORKERS);
			break;
		case 'l':
			if (nstates == MAX_STATES)
				usage();
			states[nstates++] = parse_state(optarg);
			break;
		case 't':
			seconds = parse_num(optarg, 3600);
			break;
		case 'r':
			rounds = parse_num(optarg, MAX_ROUNDS);
			break;
		default:
			usage();
		}
	}
	if (!nstates)
		states[nstates++] = LISTEN_ALL;

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		die("mmap");
	for (i = 0; i < nstates; i++) {
		state = states[i];
		if (storm(sh))
			return 1;
	}
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * cn_proc_storm: a fork/exec/exit storm with one process events listener
 * attached, for `make bench`. Prints how many events per second the
 * listener received.
 *
 * Each round, the workers fork a child that execs /proc/self/exe --exit and
 * reap it, as fast as they can, for the round's seconds, while this process
 * reads and counts every event. A first round warms up and is not counted.
 *
 *   storm: round=<r> events=<n> ns=<elapsed> rate=<events/s> busy=<%> enobufs=<n>
 *   storm: rate=<median of the rounds' rates> enobufs=<sum>
 *
 * Rates are printed to a tenth of an event per second; busy is the share
 * of all cpus' time not idle during the round, from /proc/stat.
 */
#include <errno.h>
#include <poll.h>
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
#define RCVBUF_BYTES	(64 << 20)
#define ACK_TIMEOUT_MS	5000

static unsigned int workers = 4, seconds = 5, rounds = 3, warmup_seconds = 2;

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

static int listen_proc_events(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC };
	union {
		char buf[NLMSG_SPACE(sizeof(struct cn_msg) + sizeof(uint32_t))];
		struct nlmsghdr nlh;
	} req = { 0 };
	uint32_t op = PROC_CN_MCAST_LISTEN;
	int size = RCVBUF_BYTES;
	struct cn_msg *cn;
	int sock;

	sock = socket(PF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_CONNECTOR);
	if (sock < 0)
		die("socket(NETLINK_CONNECTOR)");
	if (setsockopt(sock, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)))
		die("SO_RCVBUFFORCE");
	if (bind(sock, (struct sockaddr *)&sa, sizeof(sa)))
		die("bind");

	req.nlh.nlmsg_len = NLMSG_LENGTH(sizeof(*cn) + sizeof(op));
	req.nlh.nlmsg_type = NLMSG_DONE;
	cn = NLMSG_DATA(&req.nlh);
	cn->id.idx = CN_IDX_PROC;
	cn->id.val = CN_VAL_PROC;
	cn->len = sizeof(op);
	memcpy(cn->data, &op, sizeof(op));
	if (send(sock, &req, req.nlh.nlmsg_len, 0) < 0)
		die("send PROC_CN_MCAST_LISTEN");
	return sock;
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
		for (nlh = &u.align; NLMSG_OK(nlh, len); nlh = NLMSG_NEXT(nlh, len))
			n += nlh->nlmsg_type == NLMSG_DONE;
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

static uint64_t wait_events(int sock, uint64_t until, uint64_t *enobufs)
{
	struct pollfd pfd = { .fd = sock, .events = POLLIN };
	uint64_t n = 0, t;

	while ((t = now_ns()) < until) {
		if (poll(&pfd, 1, (until - t) / 1000000 + 1) < 0 && errno != EINTR)
			die("poll");
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

static void worker(const int *stop)
{
	pid_t pid;
	int status;

	while (!__atomic_load_n(stop, __ATOMIC_RELAXED)) {
		pid = fork();
		if (pid == 0) {
			execl("/proc/self/exe", "cn_proc_storm", "--exit", (char *)NULL);
			_exit(127);
		}
		/* A child whose exec failed would make this a fork/exit storm. */
		if (pid < 0 || waitpid(pid, &status, 0) != pid ||
		    !WIFEXITED(status) || WEXITSTATUS(status))
			_exit(1);
	}
	_exit(0);
}

/* One round: tenths of events per second received while the workers ran. */
static uint64_t round_rate(int sock, int *stop, unsigned int secs,
			   uint64_t *events, uint64_t *elapsed, unsigned int *busy,
			   uint64_t *enobufs)
{
	uint64_t start, end, total0, idle0, total1, idle1;
	pid_t pids[workers];
	unsigned int i;
	int status;

	__atomic_store_n(stop, 0, __ATOMIC_RELAXED);
	drain_all(sock, enobufs);
	cpu_times(&total0, &idle0);
	start = now_ns();
	for (i = 0; i < workers; i++) {
		pids[i] = fork();
		if (pids[i] == 0) {
			close(sock);
			worker(stop);
		}
		if (pids[i] < 0)
			die("fork");
	}
	*events = wait_events(sock, start + secs * NSEC_PER_SEC, enobufs);
	__atomic_store_n(stop, 1, __ATOMIC_RELAXED);
	*events += drain_all(sock, enobufs);
	end = now_ns();
	cpu_times(&total1, &idle1);
	*elapsed = end - start;
	*busy = total1 > total0 ?
		100 - 100 * (idle1 - idle0) / (total1 - total0) : 0;

	for (i = 0; i < workers; i++) {
		if (waitpid(pids[i], &status, 0) != pids[i] || !WIFEXITED(status) ||
		    WEXITSTATUS(status)) {
			fprintf(stderr, "storm: a worker failed\n");
			exit(1);
		}
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
	fprintf(stderr, "usage: cn_proc_storm [-w workers] [-t seconds] [-r rounds]\n");
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

/* The subscription's ack is the first message; it must report no error. */
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

	if (poll(&pfd, 1, ACK_TIMEOUT_MS) <= 0) {
		fprintf(stderr, "storm: no ack within %d ms\n", ACK_TIMEOUT_MS);
		exit(1);
	}
	len = recv(sock, u.buf, sizeof(u.buf), 0);
	if (len < 0)
		die("recv ack");
	cn = NLMSG_DATA(&u.align);
	if (!NLMSG_OK(&u.align, len) || cn->len < sizeof(ev)) {
		fprintf(stderr, "storm: the first message is not an ack\n");
		exit(1);
	}
	/* the payload is only 4-byte aligned */
	memcpy(&ev, cn->data, sizeof(ev));
	if (ev.what != PROC_EVENT_NONE || ev.event_data.ack.err) {
		fprintf(stderr, "storm: subscription refused (what %u, err %u)\n",
			ev.what, ev.event_data.ack.err);
		exit(1);
	}
}

int main(int argc, char **argv)
{
	uint64_t rates[MAX_ROUNDS], events, elapsed, median, enobufs = 0;
	unsigned int r, busy;
	int *stop, sock, opt;

	if (argc == 2 && !strcmp(argv[1], "--exit"))
		_exit(0);
	while ((opt = getopt(argc, argv, "w:t:r:")) != -1) {
		switch (opt) {
		case 'w':
			workers = parse_num(optarg, 256);
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

	stop = mmap(NULL, sizeof(*stop), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (stop == MAP_FAILED)
		die("mmap");
	sock = listen_proc_events();
	wait_ack(sock);

	printf("storm: workers=%u seconds=%u rounds=%u\n", workers, seconds, rounds);
	round_rate(sock, stop, warmup_seconds, &events, &elapsed, &busy, &enobufs);
	enobufs = 0;
	for (r = 0; r < rounds; r++) {
		uint64_t lost = enobufs;

		rates[r] = round_rate(sock, stop, seconds, &events, &elapsed,
				      &busy, &enobufs);
		printf("storm: round=%u events=%llu ns=%llu rate=%llu.%llu busy=%u%% enobufs=%llu\n",
		       r + 1, (unsigned long long)events,
		       (unsigned long long)elapsed,
		       (unsigned long long)rates[r] / 10,
		       (unsigned long long)rates[r] % 10, busy,
		       (unsigned long long)(enobufs - lost));
	}
	qsort(rates, rounds, sizeof(*rates), cmp_u64);
	median = (rates[(rounds - 1) / 2] + rates[rounds / 2]) / 2;
	printf("storm: rate=%llu.%llu enobufs=%llu\n",
	       (unsigned long long)median / 10, (unsigned long long)median % 10,
	       (unsigned long long)enobufs);
	return 0;
}

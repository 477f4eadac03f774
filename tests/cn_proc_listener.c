// SPDX-License-Identifier: GPL-2.0
/*
 * cn_proc_listener: the harness's own listener of process events in the
 * guest (not part of the series). tests/init starts it before the
 * kselftest: it subscribes, says "ready" on file descriptor 3 and closes
 * it, then records every message (its seq, cpu and stamp, and
 * CLOCK_MONOTONIC after it was read) until SIGUSR1, which init sends once
 * the kselftest has ended. It then reads what is still queued (netlink
 * broadcast queues a message before the call that caused it returns),
 * sends PROC_CN_MCAST_IGNORE and prints one line, the figures of the
 * harness's tables:
 *
 *   figures: events=N cpus=N inversions=N max_inversion_ns=N ties=N
 *            duplicates=N lead_ns=N gaps=N enobufs=N rate=N
 *
 * (on one line). Per CPU, in the order received, which is seq order:
 * inversions (a stamp below that of the CPU's previous message) and the
 * largest, ties (equal to it), gaps (a seq not one above the previous);
 * duplicates: messages whose stamp another message has too (one per equal
 * pair after sorting); lead_ns: the largest lead of a stamp over the
 * CLOCK_MONOTONIC reading taken after its message was read, 0 if none;
 * enobufs: the receive errors ENOBUFS (messages lost); rate: messages per
 * second between the first and the last stamp.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>

struct rec {
	unsigned long long ts, rx;
	unsigned int seq, cpu;
};

static struct rec *recs;
static size_t nrecs, size;
static unsigned long long enobufs;
static int sock;
static volatile sig_atomic_t stop;

static void on_usr1(int sig)
{
	stop = 1;
}

static unsigned long long now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static int send_op(enum proc_cn_mcast_op op)
{
	struct {		/* struct cn_msg, op its data */
		struct nlmsghdr nlh;
		__u32 idx, val, seq, ack;
		__u16 len, flags;
		__u32 op;
	} req = { { sizeof(req), NLMSG_DONE }, CN_IDX_PROC, CN_VAL_PROC, 0, 1,
		  sizeof(op), 0, op };

	return send(sock, &req, sizeof(req), 0);
}

/* The connector counts a listener until its IGNORE, closed or not */
static void unsubscribe(void)
{
	send_op(PROC_CN_MCAST_IGNORE);
}

/* What is queued, without waiting */
static void drain(void)
{
	unsigned long long buf[128];
	struct cn_msg *cn = NLMSG_DATA((void *)buf);
	struct proc_event ev;
	ssize_t len;

	while ((len = recv(sock, buf, sizeof(buf), MSG_DONTWAIT)) >= 0 ||
	       errno == ENOBUFS || errno == EINTR) {
		enobufs += len < 0 && errno == ENOBUFS;
		if (len < (ssize_t)NLMSG_LENGTH(sizeof(*cn) + sizeof(ev)) ||
		    cn->id.idx != CN_IDX_PROC || cn->id.val != CN_VAL_PROC)
			continue;
		memcpy(&ev, cn->data, sizeof(ev));
		if (nrecs == size) {
			size = 2 * size + 65536;
			recs = realloc(recs, size * sizeof(*recs));
			if (!recs)
				die("realloc");
		}
		/* a cpu past any real one (a bug) counts as that one */
		recs[nrecs++] = (struct rec){ ev.timestamp_ns, now(), cn->seq,
					      ev.cpu < 4096 ? ev.cpu : 4096 };
	}
	if (errno != EAGAIN)
		die("recv");
}

static int cmp_u64(const void *a, const void *b)
{
	const unsigned long long *x = a, *y = b;

	return (*x > *y) - (*x < *y);
}

static void figures(void)
{
	unsigned long long cpus = 0, inversions = 0, largest = 0, ties = 0;
	unsigned long long duplicates = 0, lead = 0, gaps = 0, rate = 0;
	unsigned long long *ts = calloc(nrecs + 1, sizeof(*ts));
	unsigned int ncpus = 0;
	struct rec **last;
	size_t i;

	for (i = 0; i < nrecs; i++)
		if (recs[i].cpu >= ncpus)
			ncpus = recs[i].cpu + 1;
	last = calloc(ncpus + 1, sizeof(*last));
	if (!ts || !last)
		die("calloc");
	for (i = 0; i < nrecs; i++) {
		struct rec *p = last[recs[i].cpu], *e = &recs[i];

		ts[i] = e->ts;
		if (e->ts > e->rx && e->ts - e->rx > lead)
			lead = e->ts - e->rx;
		last[e->cpu] = e;
		if (!p) {
			cpus++;
			continue;
		}
		gaps += e->seq != p->seq + 1;
		ties += e->ts == p->ts;
		if (e->ts < p->ts) {
			inversions++;
			if (p->ts - e->ts > largest)
				largest = p->ts - e->ts;
		}
	}
	qsort(ts, nrecs, sizeof(*ts), cmp_u64);
	for (i = 1; i < nrecs; i++)
		duplicates += ts[i] == ts[i - 1];
	if (nrecs > 1 && ts[nrecs - 1] > ts[0])
		rate = (nrecs - 1) * 1000000000ULL / (ts[nrecs - 1] - ts[0]);
	printf("figures: events=%zu cpus=%llu inversions=%llu max_inversion_ns=%llu ties=%llu duplicates=%llu lead_ns=%llu gaps=%llu enobufs=%llu rate=%llu\n",
	       nrecs, cpus, inversions, largest, ties, duplicates, lead, gaps,
	       enobufs, rate);
}

int main(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK,
				  .nl_groups = CN_IDX_PROC };
	struct sigaction act = { .sa_handler = on_usr1 };
	int rcvbuf = 256 << 20;
	sigset_t usr1, waiting;
	struct pollfd pfd;

	/* SIGUSR1 arrives only while ppoll() waits: no wakeup is lost */
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	if (sigprocmask(SIG_BLOCK, &usr1, &waiting) ||
	    sigaction(SIGUSR1, &act, NULL))
		die("SIGUSR1");
	sigdelset(&waiting, SIGUSR1);
	sock = socket(AF_NETLINK, SOCK_DGRAM, NETLINK_CONNECTOR);
	if (sock < 0 || bind(sock, (struct sockaddr *)&sa, sizeof(sa)))
		die("socket");
	if (setsockopt(sock, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf,
		       sizeof(rcvbuf)))
		die("SO_RCVBUFFORCE");
	if (send_op(PROC_CN_MCAST_LISTEN) < 0)
		die("PROC_CN_MCAST_LISTEN");
	atexit(unsubscribe);
	/* the ack is queued: subscribed */
	if (write(3, "ready\n", 6) != 6 || close(3))
		die("ready");
	pfd = (struct pollfd){ sock, POLLIN };
	while (!stop) {
		if (ppoll(&pfd, 1, NULL, &waiting) < 0 && errno != EINTR)
			die("ppoll");
		drain();
	}
	drain();
	figures();
	return 0;
}

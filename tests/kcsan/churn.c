// SPDX-License-Identifier: GPL-2.0
/*
 * churn: process events listeners that start and die while a load runs,
 * for make kcsan (tests/kcsan/hook starts it in the background and stops
 * it with SIGTERM), so that cn_proc_mcast_ctl() and cn_release() run on
 * one CPU while send_msg() and cn_filter() run on another.
 *
 * It keeps LIVE listeners: each is a child that binds a connector socket
 * to the process events group, subscribes (PROC_CN_MCAST_LISTEN), reads
 * what the connector sends it, and ends in the way of its turn:
 *   ignore    unsubscribes (PROC_CN_MCAST_IGNORE), then closes and exits
 *   unknown   subscribes, sends an op the connector does not know (it
 *             must ack EINVAL), and exits without IGNORE, which leaves
 *             the listener count raised on a kernel without the fix
 *   refilter  subscribes again and again with other filters, ignores,
 *             subscribes, while events flow, and exits without IGNORE
 *   killed    reads until churn kills it with SIGKILL
 * On SIGUSR1 it starts the storm as well: STORMERS processes that rename
 * themselves (prctl(PR_SET_NAME)) over and over, each rename a comm event,
 * the cheapest event there is, so that both CPUs stamp events as fast as
 * they can. On SIGTERM (or after -t seconds) it kills the listeners and
 * the stormers and prints what they did, one line:
 *   churn: rounds=N listen=N ignore=N unknown=N einval=N refilter=N
 *          killed=N exited=N acks=N events=N storm=N errors=N
 * (einval: acks of the unknown op with EINVAL; acks: acks of a
 * listener's own requests; events: other messages a listener received;
 * storm: renames).
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
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <linux/cn_proc.h>

#define LIVE		3	/* listeners at once */
#define HOLD_MS		40	/* how long a listener reads between requests */
#define UNKNOWN_OP	42	/* no enum proc_cn_mcast_op */
#define STORMERS	2	/* one a CPU of the guest */
#define BUF		4096

enum turn { IGNORE, UNKNOWN, REFILTER, KILLED, TURNS };

static struct counts {
	unsigned long rounds, listen, ignore, unknown, einval, refilter;
	unsigned long killed, exited, acks, events, storm, errors;
} *counts;

static volatile sig_atomic_t stop, storm;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static void on_usr1(int sig)
{
	(void)sig;
	storm = 1;
}

static void count(unsigned long *c)
{
	__atomic_add_fetch(c, 1, __ATOMIC_RELAXED);
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* One request: the op alone, or with a filter (struct proc_input) */
static int request(int sock, unsigned int ack, enum proc_cn_mcast_op op,
		   int filter, enum proc_cn_event events)
{
	char buf[NLMSG_SPACE(sizeof(struct cn_msg) +
			     sizeof(struct proc_input))] = {};
	struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
	struct cn_msg *msg = NLMSG_DATA(nlh);
	struct proc_input in = { .mcast_op = op, .event_type = events };
	size_t len = filter ? sizeof(in) : sizeof(in.mcast_op);

	nlh->nlmsg_len = NLMSG_LENGTH(sizeof(*msg) + len);
	nlh->nlmsg_type = NLMSG_DONE;
	nlh->nlmsg_pid = getpid();
	msg->id.idx = CN_IDX_PROC;
	msg->id.val = CN_VAL_PROC;
	msg->seq = ack;
	msg->ack = ack;
	msg->len = len;
	memcpy(msg->data, &in, len);
	if (send(sock, nlh, nlh->nlmsg_len, 0) != (ssize_t)nlh->nlmsg_len) {
		count(&counts->errors);
		return -1;
	}
	if (op == PROC_CN_MCAST_LISTEN)
		count(&counts->listen);
	else if (op == PROC_CN_MCAST_IGNORE)
		count(&counts->ignore);
	else
		count(&counts->unknown);
	return 0;
}

/*
 * Read for MS milliseconds: the acks of this listener's requests (ACK + 1,
 * the last one sent), each counted, an EINVAL one too, and the events.
 */
static void read_for(int sock, unsigned int ack, int ms)
{
	long long end = now_ms() + ms;
	char buf[BUF];
	struct pollfd p = { .fd = sock, .events = POLLIN };

	for (long long t; (t = now_ms()) < end;) {
		struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
		ssize_t n;

		if (poll(&p, 1, end - t) <= 0)
			continue;
		n = recv(sock, buf, sizeof(buf), MSG_DONTWAIT);
		if (n < 0) {
			/* ENOBUFS: events lost, which is no concern here */
			if (errno != EAGAIN && errno != ENOBUFS)
				count(&counts->errors);
			continue;
		}
		for (; NLMSG_OK(nlh, n); nlh = NLMSG_NEXT(nlh, n)) {
			struct cn_msg *msg = NLMSG_DATA(nlh);
			struct proc_event *ev = (struct proc_event *)msg->data;

			if (ev->what != PROC_EVENT_NONE) {
				count(&counts->events);
				continue;
			}
			if (msg->ack != ack + 1)
				continue;	/* another listener's ack */
			count(&counts->acks);
			if (ev->event_data.ack.err == EINVAL)
				count(&counts->einval);
		}
	}
}

/* A listener of turn TURN: never returns */
static void listener(enum turn turn)
{
	struct sockaddr_nl sa = {
		.nl_family = AF_NETLINK,
		.nl_groups = CN_IDX_PROC,
		.nl_pid = getpid(),
	};
	unsigned int ack = (unsigned int)getpid() << 8;
	int sock = socket(PF_NETLINK, SOCK_DGRAM, NETLINK_CONNECTOR);
	int i;

	if (sock < 0 || bind(sock, (struct sockaddr *)&sa, sizeof(sa))) {
		count(&counts->errors);
		_exit(1);
	}
	switch (turn) {
	case IGNORE:
		request(sock, ++ack, PROC_CN_MCAST_LISTEN, 0, 0);
		read_for(sock, ack, HOLD_MS);
		request(sock, ++ack, PROC_CN_MCAST_IGNORE, 0, 0);
		read_for(sock, ack, HOLD_MS / 4);
		close(sock);
		break;
	case UNKNOWN:
		/* Every event: an ack (no event kind) passes no other filter. */
		request(sock, ++ack, PROC_CN_MCAST_LISTEN, 0, 0);
		read_for(sock, ack, HOLD_MS);
		request(sock, ++ack, UNKNOWN_OP, 0, 0);
		read_for(sock, ack, HOLD_MS / 4);
		break;
	case REFILTER:
		count(&counts->refilter);
		request(sock, ++ack, PROC_CN_MCAST_LISTEN, 0, 0);
		for (i = 0; i < 4; i++) {
			read_for(sock, ack, HOLD_MS / 4);
			request(sock, ++ack, PROC_CN_MCAST_LISTEN, 1,
				i & 1 ? PROC_EVENT_FORK :
				PROC_EVENT_EXEC | PROC_EVENT_EXIT);
			read_for(sock, ack, HOLD_MS / 4);
			request(sock, ++ack, i & 2 ? PROC_CN_MCAST_IGNORE :
				PROC_CN_MCAST_LISTEN, 0, 0);
		}
		read_for(sock, ack, HOLD_MS / 4);
		break;
	default:
		request(sock, ++ack, PROC_CN_MCAST_LISTEN, 0, 0);
		for (;;)
			read_for(sock, ack, HOLD_MS);
	}
	count(&counts->exited);
	_exit(0);
}

/* A stormer: renames itself until it is killed */
static void stormer(int n)
{
	char name[16];
	unsigned long i;

	for (i = 0;; i++) {
		snprintf(name, sizeof(name), "storm%d-%lu", n, i & 1);
		if (prctl(PR_SET_NAME, name))
			count(&counts->errors);
		else
			count(&counts->storm);
	}
}

int main(int argc, char **argv)
{
	struct { pid_t pid; enum turn turn; long long start; } live[LIVE] = {};
	pid_t stormers[STORMERS] = {};
	long long end = now_ms() + 1000LL * (argc > 2 && !strcmp(argv[1], "-t") ?
					     atoi(argv[2]) : 3600);
	struct sigaction sa = { .sa_handler = on_term };
	struct sigaction sa_usr1 = { .sa_handler = on_usr1 };
	unsigned long round = 0;
	int i, status;

	counts = mmap(NULL, sizeof(*counts), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (counts == MAP_FAILED) {
		perror("churn: mmap");
		return 1;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGUSR1, &sa_usr1, NULL);
	while (!stop && now_ms() < end) {
		for (i = 0; storm && i < STORMERS; i++) {
			if (stormers[i])
				continue;
			stormers[i] = fork();
			if (!stormers[i])
				stormer(i);
			if (stormers[i] < 0) {
				stormers[i] = 0;
				count(&counts->errors);
			}
		}
		for (i = 0; i < LIVE; i++) {
			if (live[i].pid && live[i].turn == KILLED &&
			    now_ms() - live[i].start >= HOLD_MS) {
				kill(live[i].pid, SIGKILL);
				count(&counts->killed);
				live[i].turn = TURNS;	/* killed: reaped below */
			}
			if (live[i].pid &&
			    waitpid(live[i].pid, &status, WNOHANG) == live[i].pid)
				live[i].pid = 0;
			if (live[i].pid || stop)
				continue;
			live[i].turn = round++ % TURNS;
			live[i].start = now_ms();
			live[i].pid = fork();
			if (!live[i].pid)
				listener(live[i].turn);
			if (live[i].pid < 0) {
				live[i].pid = 0;
				count(&counts->errors);
			}
			count(&counts->rounds);
		}
		poll(NULL, 0, 2);
	}
	for (i = 0; i < LIVE; i++) {
		if (!live[i].pid)
			continue;
		kill(live[i].pid, SIGKILL);
		waitpid(live[i].pid, &status, 0);
	}
	for (i = 0; i < STORMERS; i++) {
		if (!stormers[i])
			continue;
		kill(stormers[i], SIGKILL);
		waitpid(stormers[i], &status, 0);
	}
	printf("churn: rounds=%lu listen=%lu ignore=%lu unknown=%lu einval=%lu",
	       counts->rounds, counts->listen, counts->ignore, counts->unknown,
	       counts->einval);
	printf(" refilter=%lu killed=%lu exited=%lu acks=%lu events=%lu",
	       counts->refilter, counts->killed, counts->exited, counts->acks,
	       counts->events);
	printf(" storm=%lu errors=%lu\n", counts->storm, counts->errors);
	return 0;
}

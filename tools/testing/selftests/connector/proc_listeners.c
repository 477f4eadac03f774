// SPDX-License-Identifier: GPL-2.0
/*
 * The process events connector builds events only while its listener count
 * is above zero, and counts a socket once, from its PROC_CN_MCAST_LISTEN to
 * its PROC_CN_MCAST_IGNORE or release, whatever else it sends. Each case
 * subscribes a socket in its own way, as root and as nobody, lets it go, and
 * checks that the count is zero again.
 *
 * An observer, a socket in the group that sends no request, reads the count:
 * it gets every event while the count is above zero and none while it is
 * not, queued before the system call that caused the event returns.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>

#include "../kselftest.h"

#define NOBODY		65534
#define UNKNOWN_OP	3
/* The inode numbers of the initial pid and user namespaces */
#define INIT_PID_NS_INO		0xEFFFFFFCU
#define INIT_USER_NS_INO	0xEFFFFFFDU

enum { L = PROC_CN_MCAST_LISTEN, I = PROC_CN_MCAST_IGNORE, X = UNKNOWN_OP };

static const struct listener {
	const char *name;
	bool join;		/* bind to the group */
	bool killed;		/* SIGKILL, not exit() */
	__u32 ops[6];		/* the requests, up to the first 0 */
} listeners[] = {
	{ "killed", true, true, { L } },
	{ "closed_outside_group", false, false, { L } },
	{ "listen_twice", true, false, { L, L } },
	{ "ignore_twice", true, false, { L, I, I } },
	{ "unknown_op_then_listen", true, false, { L, X, L } },
	{ "unknown_op_then_ignore", true, false, { L, X, I, X, I } },
};

static int observer;

static int cn_socket(bool join)
{
	struct sockaddr_nl sa = {
		.nl_family = AF_NETLINK,
		.nl_groups = join ? CN_IDX_PROC : 0,
	};
	int fd = socket(PF_NETLINK, SOCK_DGRAM, NETLINK_CONNECTOR);

	if (fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The connector has handled the request when send() returns */
static int send_op(int fd, __u32 op)
{
	union {
		char buf[NLMSG_SPACE(sizeof(struct cn_msg) + sizeof(__u32))];
		struct nlmsghdr nlh;
	} req = { 0 };
	struct cn_msg *cn = NLMSG_DATA(&req.nlh);

	req.nlh.nlmsg_len = NLMSG_LENGTH(sizeof(*cn) + sizeof(op));
	req.nlh.nlmsg_type = NLMSG_DONE;
	cn->id.idx = CN_IDX_PROC;
	cn->id.val = CN_VAL_PROC;
	cn->len = sizeof(op);
	memcpy(cn->data, &op, sizeof(op));
	return send(fd, &req, req.nlh.nlmsg_len, 0);
}

/* Whether the observer gets the event of a change of our name */
static bool count_above_zero(void)
{
	static int probe;
	char name[16], buf[8192];
	struct proc_event ev;
	struct nlmsghdr *nlh;
	bool seen = false;
	ssize_t len;

	while (recv(observer, buf, sizeof(buf), MSG_DONTWAIT) >= 0 ||
	       errno == ENOBUFS)
		;
	snprintf(name, sizeof(name), "cn-count-%d", probe++);
	prctl(PR_SET_NAME, name, 0, 0, 0);
	while ((len = recv(observer, buf, sizeof(buf), MSG_DONTWAIT)) >= 0 ||
	       errno == ENOBUFS) {
		if (len < 0)
			ksft_exit_fail_msg("observer overrun, events lost\n");
		for (nlh = (struct nlmsghdr *)buf; NLMSG_OK(nlh, len);
		     nlh = NLMSG_NEXT(nlh, len)) {
			memcpy(&ev, ((struct cn_msg *)NLMSG_DATA(nlh))->data,
			       sizeof(ev));
			seen |= ev.what == PROC_EVENT_COMM &&
				ev.event_data.comm.process_pid == getpid() &&
				!strcmp(ev.event_data.comm.comm, name);
		}
	}
	return seen;
}

/* Not above zero, and one PROC_CN_MCAST_LISTEN takes it above */
static bool count_zero(void)
{
	bool zero = !count_above_zero();
	int fd = cn_socket(false);

	if (fd < 0 || send_op(fd, L) < 0)
		ksft_exit_fail_msg("PROC_CN_MCAST_LISTEN: %s\n",
				   strerror(errno));
	zero = count_above_zero() && zero;
	send_op(fd, I);
	close(fd);
	return zero;
}

/*
 * A kernel without the fix can leave the count off zero: bring it back for
 * the next case, by what moves it by one there (an unknown op and
 * PROC_CN_MCAST_IGNORE on a new socket, or a PROC_CN_MCAST_LISTEN).
 */
static void reset_count(void)
{
	int n, fd;

	for (n = 0; n < 64 && count_above_zero(); n++) {
		fd = cn_socket(false);
		send_op(fd, X);
		send_op(fd, I);
		close(fd);
	}
	for (n = 0; n < 64 && !count_zero(); n++) {
		fd = cn_socket(false);
		send_op(fd, L);
		close(fd);
	}
}

/* A child that sends ops on a socket of its own, then exits or is killed */
static int run_listener(const struct listener *l, bool nobody)
{
	int i, fd, status, ready[2];
	pid_t pid;
	char c;

	if (pipe(ready))
		ksft_exit_fail_msg("pipe: %s\n", strerror(errno));
	pid = fork();
	if (pid < 0)
		ksft_exit_fail_msg("fork: %s\n", strerror(errno));
	if (!pid) {
		if (nobody && (setgid(NOBODY) || setuid(NOBODY)))
			_exit(KSFT_FAIL);
		fd = cn_socket(l->join);
		if (fd < 0)
			_exit(errno == EPERM ? KSFT_SKIP : KSFT_FAIL);
		for (i = 0; i < ARRAY_SIZE(l->ops) && l->ops[i]; i++)
			if (send_op(fd, l->ops[i]) < 0)
				_exit(KSFT_FAIL);
		if (l->killed && write(ready[1], "r", 1) == 1)
			pause();
		_exit(KSFT_PASS);
	}
	close(ready[1]);
	if (read(ready[0], &c, 1) == 1)
		kill(pid, SIGKILL);
	close(ready[0]);
	/* the socket is released before the child can be reaped */
	if (waitpid(pid, &status, 0) != pid)
		ksft_exit_fail_msg("waitpid: %s\n", strerror(errno));
	if (l->killed && WIFSIGNALED(status))
		return KSFT_PASS;
	return WIFEXITED(status) ? WEXITSTATUS(status) : KSFT_FAIL;
}

/* Root's listener keeps its events after nobody's requests and exit */
static void test_listener_kept(void)
{
	static const struct listener l = { .ops = { L, X, I, X, I } };
	int fd = cn_socket(true), ret;
	bool kept;

	if (fd < 0 || send_op(fd, L) < 0)
		ksft_exit_fail_msg("PROC_CN_MCAST_LISTEN: %s\n",
				   strerror(errno));
	ret = run_listener(&l, true);
	kept = count_above_zero();
	send_op(fd, I);
	close(fd);
	ksft_test_result(ret == KSFT_PASS && kept && count_zero(),
			 "listener_kept_after_nobody\n");
}

static bool outside(const char *path, unsigned long ino)
{
	struct stat st;

	return !stat(path, &st) && st.st_ino != ino;
}

/* The connector, in the initial namespaces only, with cn_proc registered */
static void check_environment(void)
{
	char line[128];
	bool found = false;
	FILE *f;

	if (geteuid())
		ksft_exit_skip("must be run as root\n");
	if (outside("/proc/self/ns/user", INIT_USER_NS_INO) ||
	    outside("/proc/self/ns/pid", INIT_PID_NS_INO))
		ksft_exit_skip("the connector ignores requests from %s\n",
			       "a pid or user namespace other than the initial");
	f = fopen("/proc/net/connector", "r");
	while (f && fgets(line, sizeof(line), f))
		found |= !strncmp(line, "cn_proc", 7);
	if (f)
		fclose(f);
	if (!found)
		ksft_exit_skip("no cn_proc in /proc/net/connector: %s\n",
			       "another network namespace, or PROC_EVENTS=n");
	observer = cn_socket(true);
	if (observer < 0)
		ksft_exit_skip("cannot join the group: %s\n", strerror(errno));
	if (count_above_zero())
		ksft_exit_skip("another process listens to process events\n");
}

int main(void)
{
	const struct listener *l;
	int who, ret;
	bool ok;

	ksft_print_header();
	check_environment();
	ksft_set_plan(2 + 2 * ARRAY_SIZE(listeners));
	ok = count_zero();
	ksft_test_result(ok, "count_zero_at_start\n");
	for (l = listeners; l < listeners + ARRAY_SIZE(listeners); l++)
		for (who = 0; who < 2; who++) {
			if (!ok)
				reset_count();
			ret = run_listener(l, who);
			ok = ret == KSFT_PASS && count_zero();
			if (ret == KSFT_SKIP)
				ksft_test_result_skip("%s_as_nobody: %s\n",
						      l->name,
						      "cannot join the group");
			else
				ksft_test_result(ok, "%s_as_%s\n", l->name,
						 who ? "nobody" : "root");
		}
	if (!ok)
		reset_count();
	test_listener_kept();
	ksft_finished();
}

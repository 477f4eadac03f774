// SPDX-License-Identifier: GPL-2.0
/*
 * Process events connector test: subscription ack, coverage of every
 * event type, causal order, stamp deltas, and per-cpu order and
 * uniqueness of timestamp_ns under fork/exec load.
 *
 * Helper processes re-exec /proc/self/exe with "--role <name>", so the
 * binary needs nothing else from the root file system.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <linux/cn_proc.h>

#include "../kselftest.h"
#include "event_check.h"

_Static_assert(sizeof(struct proc_event) == 40, "proc_event size");
_Static_assert(offsetof(struct proc_event, timestamp_ns) == 8,
	       "timestamp_ns offset");
_Static_assert(offsetof(struct proc_event, event_data) == 16,
	       "event_data offset");
_Static_assert(sizeof(struct cn_msg) == 20, "cn_msg size");

#define REQ_SEQ			1234
#define REQ_ACK			5678
#define ACK_TIMEOUT_MS		5000
#define RCVBUF_BYTES		(64 << 20)
#define POLL_MS			100
#define TEST_UID		4242
#define TEST_GID		4343
#define COV_COMM		"cn-cov"
#define LOAD_COMM		"cn-load"
#define NSEC_PER_SEC		1000000000ULL
#define NSEC_PER_MSEC		1000000ULL
#define NR_TESTS		18

#define DEF_WORKERS		4
#define DEF_EVENTS		20000
#define DEF_SECONDS		25

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/* ------------------------------------------------------------------ */
/* Recording events from the connector socket                         */

struct recorder {
	int sock;
	struct ec_event *ev;
	size_t n;
	size_t cap;
	uint64_t enobufs;
	bool nomem;
};

static void pe_to_ec(const struct cn_msg *cn, const struct proc_event *pe,
		     struct ec_event *e)
{
	memset(e, 0, sizeof(*e));
	e->seq = cn->seq;
	e->ack = cn->ack;
	e->cpu = pe->cpu;
	e->what = pe->what;
	e->ts = pe->timestamp_ns;

	switch (pe->what) {
	case PROC_EVENT_NONE:
		e->err = pe->event_data.ack.err;
		break;
	case PROC_EVENT_FORK:
		e->pid = pe->event_data.fork.child_pid;
		e->tgid = pe->event_data.fork.child_tgid;
		e->ppid = pe->event_data.fork.parent_pid;
		e->ptgid = pe->event_data.fork.parent_tgid;
		break;
	case PROC_EVENT_UID:
	case PROC_EVENT_GID:
		e->pid = pe->event_data.id.process_pid;
		e->tgid = pe->event_data.id.process_tgid;
		e->id_r = pe->event_data.id.r.ruid;
		e->id_e = pe->event_data.id.e.euid;
		break;
	case PROC_EVENT_PTRACE:
		e->pid = pe->event_data.ptrace.process_pid;
		e->tgid = pe->event_data.ptrace.process_tgid;
		e->ppid = pe->event_data.ptrace.tracer_pid;
		e->ptgid = pe->event_data.ptrace.tracer_tgid;
		break;
	case PROC_EVENT_COMM:
		e->pid = pe->event_data.comm.process_pid;
		e->tgid = pe->event_data.comm.process_tgid;
		memcpy(e->comm, pe->event_data.comm.comm, sizeof(e->comm));
		e->comm[sizeof(e->comm) - 1] = '\0';
		break;
	case PROC_EVENT_COREDUMP:
		e->pid = pe->event_data.coredump.process_pid;
		e->tgid = pe->event_data.coredump.process_tgid;
		e->ppid = pe->event_data.coredump.parent_pid;
		e->ptgid = pe->event_data.coredump.parent_tgid;
		break;
	case PROC_EVENT_EXIT:
		e->pid = pe->event_data.exit.process_pid;
		e->tgid = pe->event_data.exit.process_tgid;
		e->exit_code = pe->event_data.exit.exit_code;
		e->exit_signal = pe->event_data.exit.exit_signal;
		e->ppid = pe->event_data.exit.parent_pid;
		e->ptgid = pe->event_data.exit.parent_tgid;
		break;
	default:	/* exec, sid: pid and tgid lead the union */
		e->pid = pe->event_data.exec.process_pid;
		e->tgid = pe->event_data.exec.process_tgid;
		break;
	}
}

static void rec_append(struct recorder *r, const struct cn_msg *cn,
		       uint64_t rx)
{
	struct proc_event pe;

	if (cn->id.idx != CN_IDX_PROC || cn->id.val != CN_VAL_PROC ||
	    cn->len < sizeof(pe))
		return;
	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 65536;
		struct ec_event *ev = realloc(r->ev, cap * sizeof(*ev));

		if (!ev) {
			r->nomem = true;
			return;
		}
		r->ev = ev;
		r->cap = cap;
	}
	/* the payload is only 4-byte aligned */
	memcpy(&pe, cn->data, sizeof(pe));
	pe_to_ec(cn, &pe, &r->ev[r->n]);
	r->ev[r->n++].rx = rx;
}

/* Read what is queued without blocking. Returns -1 on a hard error. */
static int rec_drain(struct recorder *r)
{
	union {
		char buf[8192];
		struct nlmsghdr align;
	} u;
	struct nlmsghdr *nlh;
	uint64_t rx;
	ssize_t len;

	for (;;) {
		len = recv(r->sock, u.buf, sizeof(u.buf), MSG_DONTWAIT);
		rx = now_ns();
		if (len < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ENOBUFS) {
				/* overrun: events were dropped, go on */
				r->enobufs++;
				continue;
			}
			return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
		}
		for (nlh = &u.align; NLMSG_OK(nlh, len);
		     nlh = NLMSG_NEXT(nlh, len)) {
			if (nlh->nlmsg_type == NLMSG_ERROR ||
			    nlh->nlmsg_type == NLMSG_NOOP ||
			    nlh->nlmsg_len < NLMSG_LENGTH(sizeof(struct cn_msg)))
				continue;
			rec_append(r, NLMSG_DATA(nlh), rx);
		}
	}
}

static int rec_poll(struct recorder *r, int timeout_ms)
{
	struct pollfd pfd = { .fd = r->sock, .events = POLLIN };

	if (poll(&pfd, 1, timeout_ms) < 0 && errno != EINTR)
		return -1;
	return rec_drain(r);
}

static int open_connector(void)
{
	struct sockaddr_nl sa = {
		.nl_family = AF_NETLINK,
		.nl_groups = CN_IDX_PROC,
	};
	int size = RCVBUF_BYTES;
	int sock;

	sock = socket(PF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_CONNECTOR);
	if (sock < 0) {
		if (errno == EPROTONOSUPPORT)
			ksft_exit_skip("no NETLINK_CONNECTOR (CONFIG_CONNECTOR=n)\n");
		ksft_exit_fail_perror("socket");
	}
	if (setsockopt(sock, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) &&
	    setsockopt(sock, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size)))
		ksft_perror("SO_RCVBUF");
	if (bind(sock, (struct sockaddr *)&sa, sizeof(sa)))
		ksft_exit_fail_perror("bind");
	return sock;
}

static int send_listen(int sock, uint32_t seq, uint32_t ack)
{
	union {
		char buf[NLMSG_SPACE(sizeof(struct cn_msg) + sizeof(uint32_t))];
		struct nlmsghdr nlh;
	} req;
	uint32_t op = PROC_CN_MCAST_LISTEN;
	struct cn_msg *cn;

	memset(&req, 0, sizeof(req));
	req.nlh.nlmsg_len = NLMSG_LENGTH(sizeof(*cn) + sizeof(op));
	req.nlh.nlmsg_type = NLMSG_DONE;
	cn = NLMSG_DATA(&req.nlh);
	cn->id.idx = CN_IDX_PROC;
	cn->id.val = CN_VAL_PROC;
	cn->seq = seq;
	cn->ack = ack;
	cn->len = sizeof(op);
	memcpy(cn->data, &op, sizeof(op));
	return send(sock, &req, req.nlh.nlmsg_len, 0) < 0 ? -1 : 0;
}

/*
 * Acks are multicast to every listener: ours is the one echoing our
 * request (by seq, or by ack on kernels that overwrite seq). Any other
 * ack is only taken if ours never shows up.
 */
static int wait_ack(struct recorder *r, struct ec_event *ack)
{
	uint64_t deadline = now_ns() + ACK_TIMEOUT_MS * NSEC_PER_MSEC;
	bool fallback = false;
	size_t i = 0;
	uint64_t t;

	while ((t = now_ns()) < deadline) {
		if (rec_poll(r, (deadline - t) / NSEC_PER_MSEC + 1))
			ksft_exit_fail_perror("recv");
		for (; i < r->n; i++) {
			const struct ec_event *e = &r->ev[i];

			if (e->what != PROC_EVENT_NONE)
				continue;
			if (e->seq == REQ_SEQ || e->ack == REQ_ACK + 1) {
				*ack = *e;
				return 0;
			}
			if (!fallback) {
				*ack = *e;
				fallback = true;
			}
		}
	}
	return fallback ? 0 : -1;
}

static void test_ack(const struct ec_event *ack, uint64_t before,
		     uint64_t after)
{
	unsigned int faults;
	char buf[64];

	ksft_print_msg("ack: seq=%u ack=%u cpu=%u err=%u\n",
		       ack->seq, ack->ack, ack->cpu, ack->err);
	faults = ec_check_ack(ack, REQ_SEQ, REQ_ACK, before, after);
	if (faults)
		ksft_print_msg("ack: wrong %s (stamp %llu, window [%llu, %llu])\n",
			       ec_ack_faults_str(faults, buf, sizeof(buf)),
			       (unsigned long long)ack->ts,
			       (unsigned long long)before,
			       (unsigned long long)after);
	ksft_test_result(!faults, "ack\n");
}

/* ------------------------------------------------------------------ */
/* Coverage: a scripted child causing every event type                */

enum cov_step {
	ST_EXEC_BEFORE,		/* pre-exec image, just before execve() */
	ST_EXEC_AFTER,		/* first thing in the new image */
	ST_SID,
	ST_COMM,
	ST_MARK_A,
	ST_MARK_B,
	ST_MARK_C,
	ST_TRACE_READY,		/* the tracer attaches and detaches now */
	ST_FORK_CORE,
	ST_CORE_KILL,		/* reported by the dumping child */
	ST_CORE_REAPED,
	ST_FORK_EXIT3,
	ST_EXIT3,		/* reported by the exiting child */
	ST_EXIT3_REAPED,
	ST_GID,
	ST_UID,
	ST_DONE,
	ST_MAX
};

/* Pipe writes of this size are atomic, so records never interleave. */
struct cov_report {
	uint32_t step;
	int32_t pid;
	int32_t status;		/* errno of the step, or a wait status */
	uint32_t pad;
	uint64_t before;
	uint64_t after;
};

struct cov_run {
	pid_t tracer;
	pid_t child;
	uint64_t fork_before, fork_after;
	uint64_t attach_before, attach_after;
	uint64_t detach_before, detach_after;
	int attach_err, detach_err;
	int status;
	struct cov_report rep[ST_MAX];
	bool have[ST_MAX];
};

static void report(int fd, enum cov_step step, pid_t pid, int status,
		   uint64_t before, uint64_t after)
{
	struct cov_report r = {
		.step = step, .pid = pid, .status = status,
		.before = before, .after = after,
	};

	if (write(fd, &r, sizeof(r)) != sizeof(r))
		_exit(125);
}

static void set_comm_timed(int rep, enum cov_step step, const char *comm)
{
	uint64_t before = now_ns();
	int ret = prctl(PR_SET_NAME, comm, 0, 0, 0);
	uint64_t after = now_ns();

	report(rep, step, getpid(), ret ? errno : 0, before, after);
}

/*
 * poll() rather than nanosleep(): it takes no time_t, so a 32-bit listener
 * sleeps on a kernel without CONFIG_COMPAT_32BIT_TIME as well.
 */
static void sleep_ms(unsigned int ms)
{
	uint64_t end = now_ns() + ms * NSEC_PER_MSEC, now;

	while ((now = now_ns()) < end)
		poll(NULL, 0, (end - now + NSEC_PER_MSEC - 1) / NSEC_PER_MSEC);
}

static void wait_for_tracer(int rep, int ctl)
{
	char c;

	report(rep, ST_TRACE_READY, getpid(), 0, now_ns(), 0);
	while (read(ctl, &c, 1) < 0 && errno == EINTR)
		;
}

/* Fork a child that dies by SIGABRT (core) or exits with 3, and reap it */
static void spawn_and_reap(int rep, enum cov_step fork_step,
			   enum cov_step child_step, enum cov_step reap_step,
			   bool core)
{
	uint64_t before = now_ns(), after;
	pid_t pid = fork();
	int status = 0;

	if (pid == 0) {
		struct rlimit no_core = { 0, 0 };

		if (!core) {
			report(rep, child_step, getpid(), 0, now_ns(), 0);
			_exit(3);
		}
		/* the event is sent even when no core file gets written */
		setrlimit(RLIMIT_CORE, &no_core);
		prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
		report(rep, child_step, getpid(), 0, now_ns(), 0);
		kill(getpid(), SIGABRT);
		_exit(126);
	}
	after = now_ns();
	report(rep, fork_step, pid, pid < 0 ? errno : 0, before, after);
	if (pid > 0)
		waitpid(pid, &status, 0);
	report(rep, reap_step, pid, status, 0, now_ns());
}

static void set_id_timed(int rep, enum cov_step step, bool uid)
{
	uint64_t before = now_ns();
	int ret = uid ? setuid(TEST_UID) : setgid(TEST_GID);
	uint64_t after = now_ns();

	report(rep, step, getpid(), ret ? errno : 0, before, after);
}

/* The exec'ed coverage child; the listener is its parent and tracer. */
static int role_cov(int rep, int ctl)
{
	uint64_t before, after;
	int ret;

	report(rep, ST_EXEC_AFTER, getpid(), 0, 0, now_ns());

	before = now_ns();
	ret = setsid();
	after = now_ns();
	report(rep, ST_SID, getpid(), ret < 0 ? errno : 0, before, after);

	set_comm_timed(rep, ST_COMM, COV_COMM);
	set_comm_timed(rep, ST_MARK_A, "mark-a");
	sleep_ms(100);
	set_comm_timed(rep, ST_MARK_B, "mark-b");
	sleep_ms(250);
	set_comm_timed(rep, ST_MARK_C, "mark-c");

	wait_for_tracer(rep, ctl);

	spawn_and_reap(rep, ST_FORK_CORE, ST_CORE_KILL, ST_CORE_REAPED, true);
	spawn_and_reap(rep, ST_FORK_EXIT3, ST_EXIT3, ST_EXIT3_REAPED, false);

	/* privileges are dropped last: nothing below needs them */
	set_id_timed(rep, ST_GID, false);
	set_id_timed(rep, ST_UID, true);

	report(rep, ST_DONE, getpid(), 0, now_ns(), 0);
	return 0;
}

static void trace_child(struct cov_run *cov, int ctl)
{
	int status;

	cov->attach_before = now_ns();
	if (ptrace(PTRACE_ATTACH, cov->child, 0, 0))
		cov->attach_err = errno;
	cov->attach_after = now_ns();
	if (!cov->attach_err) {
		waitpid(cov->child, &status, 0);
		cov->detach_before = now_ns();
		if (ptrace(PTRACE_DETACH, cov->child, 0, 0))
			cov->detach_err = errno;
		cov->detach_after = now_ns();
	}
	if (write(ctl, "g", 1) != 1)
		ksft_perror("write ctl");
}

static void exec_cov_child(int rep, int ctl)
{
	char rep_s[16], ctl_s[16];

	snprintf(rep_s, sizeof(rep_s), "%d", rep);
	snprintf(ctl_s, sizeof(ctl_s), "%d", ctl);
	fcntl(rep, F_SETFD, 0);
	fcntl(ctl, F_SETFD, 0);
	report(rep, ST_EXEC_BEFORE, getpid(), 0, now_ns(), 0);
	execl("/proc/self/exe", "cn_proc_test", "--role", "cov", rep_s, ctl_s,
	      (char *)NULL);
	_exit(127);
}

static void run_coverage(struct cov_run *cov)
{
	int rep[2], ctl[2];
	struct cov_report r;

	memset(cov, 0, sizeof(*cov));
	cov->tracer = getpid();
	if (pipe2(rep, O_CLOEXEC) || pipe2(ctl, O_CLOEXEC)) {
		ksft_perror("pipe");
		return;
	}
	fflush(stdout);
	cov->fork_before = now_ns();
	cov->child = fork();
	cov->fork_after = now_ns();
	if (cov->child == 0) {
		close(rep[0]);
		close(ctl[1]);
		exec_cov_child(rep[1], ctl[0]);
	}
	close(rep[1]);
	close(ctl[0]);
	if (cov->child < 0) {
		ksft_perror("fork");
		goto out;
	}
	/* EOF once the child and its own children are all gone */
	while (read(rep[0], &r, sizeof(r)) == sizeof(r)) {
		if (r.step >= ST_MAX)
			continue;
		cov->rep[r.step] = r;
		cov->have[r.step] = true;
		if (r.step == ST_TRACE_READY)
			trace_child(cov, ctl[1]);
	}
	waitpid(cov->child, &cov->status, 0);
	if (!WIFEXITED(cov->status) || WEXITSTATUS(cov->status))
		ksft_print_msg("coverage child failed, wait status %#x%s\n",
			       cov->status,
			       WEXITSTATUS(cov->status) == 127 ?
			       " (cannot exec /proc/self/exe)" : "");
out:
	close(rep[0]);
	close(ctl[1]);
}

/* ------------------------------------------------------------------ */
/* Checking the coverage events                                        */

typedef bool (*ev_pred)(const struct ec_event *e, const void *arg);

static bool is_attach(const struct ec_event *e, const void *arg)
{
	(void)arg;
	return e->ppid != 0;
}

static bool is_detach(const struct ec_event *e, const void *arg)
{
	(void)arg;
	return e->ppid == 0;
}

static bool comm_is(const struct ec_event *e, const void *arg)
{
	return !strcmp(e->comm, arg);
}

static unsigned int find_events(const struct recorder *r, uint32_t what,
				int32_t pid, ev_pred pred, const void *arg,
				const struct ec_event **first)
{
	unsigned int count = 0;
	size_t i;

	*first = NULL;
	for (i = 0; i < r->n; i++) {
		const struct ec_event *e = &r->ev[i];

		if (e->what != what || e->pid != pid || (pred && !pred(e, arg)))
			continue;
		if (!count++)
			*first = e;
	}
	return count;
}

/*
 * Exactly one matching event, stamped in [before, after + slack]; with
 * after == UNTIL_READ, no later than the listener read it.
 */
#define UNTIL_READ 0
static const struct ec_event *expect_one(const char *name,
					 const struct recorder *r,
					 uint32_t what, int32_t pid,
					 ev_pred pred, const void *arg,
					 uint64_t before, uint64_t after)
{
	const struct ec_event *e;
	unsigned int count;

	count = find_events(r, what, pid, pred, arg, &e);
	if (count != 1) {
		ksft_print_msg("%s: %u %s events for pid %d, expected 1\n",
			       name, count, ec_what_str(what), pid);
		return NULL;
	}
	if (after == UNTIL_READ)
		after = e->rx;
	if (ec_check_window(e->ts, before, after) != EC_WIN_OK) {
		ksft_print_msg("%s: pid %d stamp %llu outside [%llu, %llu] + %llu ns\n",
			       name, pid, (unsigned long long)e->ts,
			       (unsigned long long)before,
			       (unsigned long long)after, EC_SLACK_NS);
		return NULL;
	}
	return e;
}

static bool fields_ok(const char *name, bool ok, const struct ec_event *e)
{
	if (!ok)
		ksft_print_msg("%s: wrong fields: pid=%d tgid=%d ppid=%d ptgid=%d id=%u/%u exit=%u/%u comm=%.16s\n",
			       name, e->pid, e->tgid, e->ppid, e->ptgid,
			       e->id_r, e->id_e, e->exit_code, e->exit_signal,
			       e->comm);
	return ok;
}

/* Reaping steps carry a wait status, the others an errno */
static int step_errno(const struct cov_report *rep)
{
	if (rep->step == ST_CORE_REAPED || rep->step == ST_EXIT3_REAPED)
		return 0;
	return rep->status;
}

static bool have_steps(const struct cov_run *cov, const char *name,
		       enum cov_step a, enum cov_step b)
{
	if (!cov->have[a] || !cov->have[b]) {
		ksft_print_msg("%s: no report from the coverage child\n", name);
		return false;
	}
	if (step_errno(&cov->rep[a]) || step_errno(&cov->rep[b])) {
		errno = step_errno(&cov->rep[a]) ? step_errno(&cov->rep[a]) :
						   step_errno(&cov->rep[b]);
		ksft_perror(name);
		return false;
	}
	return true;
}

static bool check_fork(const struct recorder *r, const struct cov_run *cov)
{
	const struct cov_report *core = &cov->rep[ST_FORK_CORE];
	const struct cov_report *ex3 = &cov->rep[ST_FORK_EXIT3];
	const struct ec_event *e;
	pid_t c = cov->child;

	e = expect_one("fork", r, PROC_EVENT_FORK, c, NULL, NULL,
		       cov->fork_before, cov->fork_after);
	if (!e || !fields_ok("fork", e->tgid == c && e->ppid == cov->tracer &&
			     e->ptgid == cov->tracer, e))
		return false;
	if (!have_steps(cov, "fork", ST_FORK_CORE, ST_FORK_EXIT3))
		return false;
	e = expect_one("fork", r, PROC_EVENT_FORK, core->pid, NULL, NULL,
		       core->before, core->after);
	if (!e || !fields_ok("fork", e->ppid == c && e->ptgid == c, e))
		return false;
	e = expect_one("fork", r, PROC_EVENT_FORK, ex3->pid, NULL, NULL,
		       ex3->before, ex3->after);
	return e && fields_ok("fork", e->ppid == c && e->ptgid == c, e);
}

static bool check_exec(const struct recorder *r, const struct cov_run *cov)
{
	const struct ec_event *e;

	if (!have_steps(cov, "exec", ST_EXEC_BEFORE, ST_EXEC_AFTER))
		return false;
	e = expect_one("exec", r, PROC_EVENT_EXEC, cov->child, NULL, NULL,
		       cov->rep[ST_EXEC_BEFORE].before,
		       cov->rep[ST_EXEC_AFTER].after);
	return e && fields_ok("exec", e->tgid == cov->child, e);
}

static bool check_id(const struct recorder *r, const struct cov_run *cov,
		     bool uid)
{
	enum cov_step st = uid ? ST_UID : ST_GID;
	const char *name = uid ? "uid" : "gid";
	uint32_t id = uid ? TEST_UID : TEST_GID;
	const struct ec_event *e;

	if (!have_steps(cov, name, st, st))
		return false;
	e = expect_one(name, r, uid ? PROC_EVENT_UID : PROC_EVENT_GID,
		       cov->child, NULL, NULL, cov->rep[st].before,
		       cov->rep[st].after);
	return e && fields_ok(name, e->tgid == cov->child && e->id_r == id &&
			      e->id_e == id, e);
}

static bool check_sid(const struct recorder *r, const struct cov_run *cov)
{
	const struct ec_event *e;

	if (!have_steps(cov, "sid", ST_SID, ST_SID))
		return false;
	e = expect_one("sid", r, PROC_EVENT_SID, cov->child, NULL, NULL,
		       cov->rep[ST_SID].before, cov->rep[ST_SID].after);
	return e && fields_ok("sid", e->tgid == cov->child, e);
}

static bool check_ptrace(const struct recorder *r, const struct cov_run *cov,
			 bool attach)
{
	const char *name = attach ? "ptrace_attach" : "ptrace_detach";
	int err = attach ? cov->attach_err : cov->detach_err;
	pid_t tracer = attach ? cov->tracer : 0;
	const struct ec_event *e;

	if (!cov->have[ST_TRACE_READY] || !cov->attach_before) {
		ksft_print_msg("%s: child never got ready\n", name);
		return false;
	}
	if (err || (!attach && cov->attach_err)) {
		errno = err ? err : cov->attach_err;
		ksft_perror(name);
		return false;
	}
	e = expect_one(name, r, PROC_EVENT_PTRACE, cov->child,
		       attach ? is_attach : is_detach, NULL,
		       attach ? cov->attach_before : cov->detach_before,
		       attach ? cov->attach_after : cov->detach_after);
	return e && fields_ok(name, e->tgid == cov->child &&
			      e->ppid == tracer && e->ptgid == tracer, e);
}

static bool check_comm(const struct recorder *r, const struct cov_run *cov)
{
	const struct ec_event *e;

	if (!have_steps(cov, "comm", ST_COMM, ST_COMM))
		return false;
	e = expect_one("comm", r, PROC_EVENT_COMM, cov->child, comm_is,
		       COV_COMM, cov->rep[ST_COMM].before,
		       cov->rep[ST_COMM].after);
	return e && fields_ok("comm", e->tgid == cov->child, e);
}

static void test_coredump(const struct recorder *r, const struct cov_run *cov)
{
	const struct cov_report *kill = &cov->rep[ST_CORE_KILL];
	const struct cov_report *reap = &cov->rep[ST_CORE_REAPED];
	const struct ec_event *e;
	int st = reap->status;

	if (!have_steps(cov, "coredump", ST_CORE_KILL, ST_FORK_CORE) ||
	    !cov->have[ST_CORE_REAPED]) {
		ksft_test_result_fail("coredump\n");
		return;
	}
	if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGABRT) {
		ksft_test_result_skip("coredump: child not killed by SIGABRT (status %#x)\n",
				      st);
		return;
	}
	e = expect_one("coredump", r, PROC_EVENT_COREDUMP, kill->pid, NULL,
		       NULL, kill->before, reap->after);
	ksft_test_result(e && fields_ok("coredump", e->tgid == kill->pid &&
					e->ppid == cov->child &&
					e->ptgid == cov->child, e),
			 "coredump\n");
}

/*
 * The kernel sends the exit event after exit_notify() has woken the parent,
 * so the parent may have reaped the child already: the event then carries
 * no parent (proc_exit_connector() checks pid_alive()), and only the
 * moment the listener read it bounds its stamp from above.
 */
static bool exit_parent_ok(const struct ec_event *e, int32_t parent)
{
	return (e->ppid == parent && e->ptgid == parent) ||
	       (e->ppid == 0 && e->ptgid == 0);
}

static bool check_exit(const char *name, const struct recorder *r,
		       int32_t pid, int32_t parent, uint64_t before,
		       bool (*code_ok)(uint32_t))
{
	const struct ec_event *e;

	e = expect_one(name, r, PROC_EVENT_EXIT, pid, NULL, NULL, before,
		       UNTIL_READ);
	return e && fields_ok(name, e->tgid == pid && exit_parent_ok(e, parent) &&
			      code_ok(e->exit_code) &&
			      e->exit_signal == SIGCHLD, e);
}

static bool code_is_0(uint32_t code)
{
	return code == 0;
}

static bool code_is_3(uint32_t code)
{
	return code == 3 << 8;
}

/* 0x80 is set in addition when a core file got written */
static bool code_is_sigabrt(uint32_t code)
{
	return (code & 0x7f) == SIGABRT;
}

static bool check_exit_code(const struct recorder *r,
			    const struct cov_run *cov)
{
	const struct cov_report *ex = &cov->rep[ST_EXIT3];

	if (!have_steps(cov, "exit_code", ST_EXIT3, ST_EXIT3_REAPED) ||
	    !have_steps(cov, "exit_code", ST_DONE, ST_DONE))
		return false;
	return check_exit("exit_code", r, ex->pid, cov->child, ex->before,
			  code_is_3) &&
	       check_exit("exit_code", r, cov->child, cov->tracer,
			  cov->rep[ST_DONE].before, code_is_0);
}

static bool check_exit_signal(const struct recorder *r,
			      const struct cov_run *cov)
{
	const struct cov_report *kill = &cov->rep[ST_CORE_KILL];

	if (!have_steps(cov, "exit_signal", ST_CORE_KILL, ST_CORE_REAPED))
		return false;
	return check_exit("exit_signal", r, kill->pid, cov->child,
			  kill->before, code_is_sigabrt);
}

static void test_coverage(const struct recorder *r, const struct cov_run *cov)
{
	ksft_test_result(check_fork(r, cov), "fork\n");
	ksft_test_result(check_exec(r, cov), "exec\n");
	ksft_test_result(check_id(r, cov, true), "uid\n");
	ksft_test_result(check_id(r, cov, false), "gid\n");
	ksft_test_result(check_sid(r, cov), "sid\n");
	ksft_test_result(check_ptrace(r, cov, true), "ptrace_attach\n");
	ksft_test_result(check_ptrace(r, cov, false), "ptrace_detach\n");
	ksft_test_result(check_comm(r, cov), "comm\n");
	test_coredump(r, cov);
	ksft_test_result(check_exit_code(r, cov), "exit_code\n");
	ksft_test_result(check_exit_signal(r, cov), "exit_signal\n");
}

/* ------------------------------------------------------------------ */
/* Stamp deltas between the marks                                      */

static uint64_t mid(const struct cov_report *rep)
{
	return rep->before + (rep->after - rep->before) / 2;
}

static void test_delta(const struct recorder *r, const struct cov_run *cov,
		       enum cov_step a, enum cov_step b, unsigned int ms)
{
	static const char * const marks[] = { "mark-a", "mark-b", "mark-c" };
	const struct ec_event *ea, *eb;
	char name[32];
	uint64_t kd, ud;
	int ret;

	snprintf(name, sizeof(name), "delta_%ums", ms);
	if (!have_steps(cov, name, a, b) ||
	    find_events(r, PROC_EVENT_COMM, cov->child, comm_is,
			marks[a - ST_MARK_A], &ea) != 1 ||
	    find_events(r, PROC_EVENT_COMM, cov->child, comm_is,
			marks[b - ST_MARK_A], &eb) != 1) {
		ksft_print_msg("%s: marks not received exactly once\n", name);
		ksft_test_result_fail("%s\n", name);
		return;
	}
	kd = eb->ts - ea->ts;
	ud = mid(&cov->rep[b]) - mid(&cov->rep[a]);
	ksft_print_msg("%s: stamp delta %llu ns, userspace delta %llu ns\n",
		       name, (unsigned long long)kd, (unsigned long long)ud);
	ret = ec_check_delta(ea->ts, eb->ts, ms * NSEC_PER_MSEC, ud);
	if (ret == EC_DELTA_SHORT)
		ksft_print_msg("%s: shorter than the sleep\n", name);
	else if (ret == EC_DELTA_OFF)
		ksft_print_msg("%s: off by more than %llu ns\n", name,
			       EC_DELTA_TOL_NS);
	ksft_test_result(ret == EC_DELTA_OK, "%s\n", name);
}

/* ------------------------------------------------------------------ */
/* Load: fork/setsid/rename/exec storms                               */

struct load_run {
	unsigned int workers;
	uint64_t target;
	unsigned int seconds;
	pid_t *pids;
	uint64_t start, stop;
	uint64_t events;	/* received between start and stop */
};

static void worker_loop(const int *stop)
{
	pid_t pid;

	while (!__atomic_load_n(stop, __ATOMIC_RELAXED)) {
		pid = fork();
		if (pid == 0) {
			setsid();
			prctl(PR_SET_NAME, LOAD_COMM, 0, 0, 0);
			execl("/proc/self/exe", "cn_proc_test", "--role",
			      "exit", (char *)NULL);
			_exit(127);
		}
		if (pid < 0)
			_exit(1);
		waitpid(pid, NULL, 0);
	}
	_exit(0);
}

static void run_load(struct recorder *r, struct load_run *ld)
{
	uint64_t limit = ld->seconds * NSEC_PER_SEC;
	size_t first = r->n;
	unsigned int i;
	int *stop;

	stop = mmap(NULL, sizeof(*stop), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ld->pids = calloc(ld->workers, sizeof(*ld->pids));
	if (stop == MAP_FAILED || !ld->pids)
		ksft_exit_fail_msg("out of memory\n");
	*stop = 0;

	fflush(stdout);
	ld->start = now_ns();
	for (i = 0; i < ld->workers; i++) {
		ld->pids[i] = fork();
		if (ld->pids[i] == 0) {
			close(r->sock);
			worker_loop(stop);
		}
		if (ld->pids[i] < 0)
			ksft_perror("fork worker");
	}
	while (r->n - first < ld->target && now_ns() - ld->start < limit)
		if (rec_poll(r, POLL_MS))
			ksft_exit_fail_perror("recv");
	__atomic_store_n(stop, 1, __ATOMIC_RELAXED);
	ld->stop = now_ns();
	ld->events = r->n - first;

	for (i = 0; i < ld->workers; i++)
		if (ld->pids[i] > 0)
			waitpid(ld->pids[i], NULL, 0);
	if (rec_drain(r))
		ksft_exit_fail_perror("recv");
	munmap(stop, sizeof(*stop));
}

static uint64_t load_rate(const struct load_run *ld)
{
	uint64_t ns = ld->stop - ld->start;

	return ns ? ld->events * NSEC_PER_SEC / ns : 0;
}

/* ------------------------------------------------------------------ */
/* Causal order over the coverage and load processes                   */

struct keyed {
	int32_t key;
	size_t idx;
};

static int cmp_pid(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_keyed(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static bool in_set(const int32_t *set, size_t n, int32_t pid)
{
	return pid > 0 && bsearch(&pid, set, n, sizeof(*set), cmp_pid);
}

/*
 * Check every pid of a sorted set with one pass over the recording:
 * gather the events concerning the set (a fork concerns its parent and
 * its child), group them by pid and check each group.
 */
static uint64_t causal_set(const struct recorder *r, const int32_t *set,
			   size_t nset, unsigned int flags)
{
	struct ec_event *sub = NULL;
	struct keyed *k = NULL;
	uint64_t bad = 0;
	size_t i, m = 0, start;
	char why[128];

	if (!nset)
		return 0;
	k = malloc(2 * r->n * sizeof(*k) + 1);
	sub = malloc(2 * r->n * sizeof(*sub) + 1);
	if (!k || !sub)
		ksft_exit_fail_msg("out of memory\n");
	for (i = 0; i < r->n; i++) {
		const struct ec_event *e = &r->ev[i];

		if (e->what == PROC_EVENT_NONE)
			continue;
		if (in_set(set, nset, e->pid))
			k[m++] = (struct keyed){ e->pid, i };
		if (e->what == PROC_EVENT_FORK && in_set(set, nset, e->ppid))
			k[m++] = (struct keyed){ e->ppid, i };
	}
	qsort(k, m, sizeof(*k), cmp_keyed);
	for (i = 0; i < m; i++)
		sub[i] = r->ev[k[i].idx];
	for (start = 0; start < m; start = i) {
		for (i = start; i < m && k[i].key == k[start].key; i++)
			;
		if (ec_check_causal(sub + start, i - start, k[start].key,
				    flags, why, sizeof(why))) {
			if (bad++ < 5)
				ksft_print_msg("causal_order: %s\n", why);
		}
	}
	free(sub);
	free(k);
	return bad;
}

/* Children of the (sorted) load workers, found by their fork events */
static size_t load_children(const struct recorder *r, const int32_t *workers,
			    size_t nworkers, int32_t **out)
{
	int32_t *kids;
	size_t i, n = 0;

	kids = malloc(r->n * sizeof(*kids) + 1);
	if (!kids)
		ksft_exit_fail_msg("out of memory\n");
	for (i = 0; i < r->n; i++)
		if (r->ev[i].what == PROC_EVENT_FORK &&
		    in_set(workers, nworkers, r->ev[i].ptgid))
			kids[n++] = r->ev[i].pid;
	qsort(kids, n, sizeof(*kids), cmp_pid);
	*out = kids;
	return n;
}

static void test_causal(const struct recorder *r, const struct cov_run *cov,
			const struct load_run *ld, uint64_t losses)
{
	int32_t cov_child[1] = { cov->child };
	int32_t plain[2] = { cov->rep[ST_CORE_KILL].pid,
			     cov->rep[ST_EXIT3].pid };
	uint64_t bad, load_bad;
	int32_t *kids, *workers;
	size_t i, nkids;

	bad = causal_set(r, cov_child, 1, EC_CAUSAL_EXEC_FIRST);
	qsort(plain, 2, sizeof(plain[0]), cmp_pid);
	bad += causal_set(r, plain, 2, 0);

	workers = malloc(ld->workers * sizeof(*workers) + 1);
	if (!workers)
		ksft_exit_fail_msg("out of memory\n");
	for (i = 0; i < ld->workers; i++)
		workers[i] = ld->pids[i];
	qsort(workers, ld->workers, sizeof(*workers), cmp_pid);
	load_bad = causal_set(r, workers, ld->workers, 0);
	nkids = load_children(r, workers, ld->workers, &kids);
	load_bad += causal_set(r, kids, nkids, EC_CAUSAL_EXEC_LAST);
	free(kids);
	free(workers);

	ksft_print_msg("causal_order: %zu load children, %llu + %llu violations\n",
		       nkids, (unsigned long long)bad,
		       (unsigned long long)load_bad);
	/* with events lost, a load process may look born after its events */
	if (load_bad && losses) {
		ksft_print_msg("causal_order: load violations ignored, %llu events lost\n",
			       (unsigned long long)losses);
		load_bad = 0;
	}
	ksft_test_result(!bad && !load_bad, "causal_order\n");
}

/* ------------------------------------------------------------------ */

static void test_layout(void)
{
	ksft_print_msg("layout: sizeof=%zu what@%zu cpu@%zu timestamp_ns@%zu event_data@%zu\n",
		       sizeof(struct proc_event),
		       offsetof(struct proc_event, what),
		       offsetof(struct proc_event, cpu),
		       offsetof(struct proc_event, timestamp_ns),
		       offsetof(struct proc_event, event_data));
	ksft_test_result_pass("layout\n");
}

static void test_load(const struct ec_order_stats *st,
		      const struct load_run *ld, const struct recorder *r)
{
	ksft_print_msg("load: %llu events in %llu ms, %llu gaps (%llu lost), %llu ENOBUFS\n",
		       (unsigned long long)ld->events,
		       (unsigned long long)((ld->stop - ld->start) /
					    NSEC_PER_MSEC),
		       (unsigned long long)st->gaps,
		       (unsigned long long)st->missing,
		       (unsigned long long)r->enobufs);
	if (st->inversions || st->ties)
		ksft_print_msg("load_order: %llu inversions (max %llu ns), %llu ties\n",
			       (unsigned long long)st->inversions,
			       (unsigned long long)st->max_inversion_ns,
			       (unsigned long long)st->ties);
	ksft_test_result(!st->inversions && !st->ties, "load_order\n");
	if (st->duplicates)
		ksft_print_msg("load_unique: %llu events share a stamp\n",
			       (unsigned long long)st->duplicates);
	ksft_test_result(!st->duplicates, "load_unique\n");
}

static void usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [-w workers] [-n events] [-t seconds]\n"
		"  -w  load workers (default %d)\n"
		"  -n  stop the load after this many events (default %d)\n"
		"  -t  stop the load after this many seconds (default %d)\n",
		prog, DEF_WORKERS, DEF_EVENTS, DEF_SECONDS);
	exit(KSFT_FAIL);
}

static unsigned long parse_num(const char *s, const char *prog)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || *end || !*s || !v)
		usage(prog);
	return v;
}

static int run_role(int argc, char **argv)
{
	if (!strcmp(argv[0], "exit"))
		_exit(0);
	if (!strcmp(argv[0], "cov") && argc == 3)
		return role_cov(atoi(argv[1]), atoi(argv[2]));
	return KSFT_FAIL;
}

int main(int argc, char **argv)
{
	struct load_run ld = {
		.workers = DEF_WORKERS, .target = DEF_EVENTS,
		.seconds = DEF_SECONDS,
	};
	struct recorder r = { 0 };
	struct ec_order_stats st;
	uint64_t before, after;
	struct cov_run cov;
	struct ec_event ack;
	int opt;

	if (argc >= 3 && !strcmp(argv[1], "--role"))
		return run_role(argc - 2, argv + 2);

	while ((opt = getopt(argc, argv, "w:n:t:h")) != -1) {
		switch (opt) {
		case 'w':
			ld.workers = parse_num(optarg, argv[0]);
			break;
		case 'n':
			ld.target = parse_num(optarg, argv[0]);
			break;
		case 't':
			ld.seconds = parse_num(optarg, argv[0]);
			break;
		default:
			usage(argv[0]);
		}
	}

	ksft_print_header();
	if (geteuid())
		ksft_exit_skip("must be run as root\n");

	r.sock = open_connector();
	before = now_ns();
	if (send_listen(r.sock, REQ_SEQ, REQ_ACK))
		ksft_exit_fail_perror("send PROC_CN_MCAST_LISTEN");
	after = now_ns();
	if (wait_ack(&r, &ack))
		ksft_exit_skip("no ack within %d ms (CONFIG_PROC_EVENTS=n?)\n",
			       ACK_TIMEOUT_MS);

	ksft_set_plan(NR_TESTS);
	test_ack(&ack, before, after);

	run_coverage(&cov);
	run_load(&r, &ld);
	if (r.nomem)
		ksft_exit_fail_msg("out of memory recording events\n");
	if (ec_check_order(r.ev, r.n, &st))
		ksft_exit_fail_msg("out of memory\n");

	test_coverage(&r, &cov);
	test_causal(&r, &cov, &ld, st.missing + r.enobufs);
	test_delta(&r, &cov, ST_MARK_A, ST_MARK_B, 100);
	test_delta(&r, &cov, ST_MARK_B, ST_MARK_C, 250);
	test_load(&st, &ld, &r);
	test_layout();

	ksft_print_msg("cn_proc: events=%llu cpus=%u inversions=%llu max_inversion_ns=%llu ties=%llu duplicates=%llu gaps=%llu losses=%llu enobufs=%llu rate=%llu ack_seq=%u ack_cpu=%u\n",
		       (unsigned long long)r.n, st.cpus,
		       (unsigned long long)st.inversions,
		       (unsigned long long)st.max_inversion_ns,
		       (unsigned long long)st.ties,
		       (unsigned long long)st.duplicates,
		       (unsigned long long)st.gaps,
		       (unsigned long long)st.missing,
		       (unsigned long long)r.enobufs,
		       (unsigned long long)load_rate(&ld),
		       ack.seq, ack.cpu);
	free(r.ev);
	free(ld.pids);
	close(r.sock);
	ksft_finished();
}

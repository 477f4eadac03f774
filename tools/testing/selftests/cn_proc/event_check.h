/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pure checks over recorded process connector events: no sockets, no
 * system calls, so that they can be unit tested on crafted streams.
 */
#ifndef __CN_PROC_EVENT_CHECK_H
#define __CN_PROC_EVENT_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include <linux/cn_proc.h>

/*
 * The kernel may hand out a stamp up to 1 ns per event ahead of
 * CLOCK_MONOTONIC when many events are stamped while the clock does not
 * advance (e.g. clocksource=jiffies), so upper window bounds get a slack.
 */
#define EC_SLACK_NS		1000000ULL

/*
 * Allowed difference between a kernel stamp delta and the delta measured
 * in userspace around the same system calls: wide enough for QEMU software
 * emulation (TCG) scheduling noise, tight enough to catch a wrong clock
 * (e.g. CLOCK_REALTIME after a jump) or a wrong unit (us instead of ns).
 */
#define EC_DELTA_TOL_NS		20000000ULL

/* cpu of a subscription ack, which is not part of any per-cpu sequence */
#define EC_CPU_NONE		0xffffffffU

/* One received proc_event plus the cn_msg header fields we care about. */
struct ec_event {
	uint32_t seq;		/* cn_msg.seq */
	uint32_t ack;		/* cn_msg.ack */
	uint32_t cpu;
	uint32_t what;		/* PROC_EVENT_* */
	uint64_t ts;		/* timestamp_ns */
	uint64_t rx;		/* CLOCK_MONOTONIC when the listener read it */
	/* subject: the child for fork, the tracee for ptrace */
	int32_t pid;
	int32_t tgid;
	/* parent for fork/coredump/exit, tracer for ptrace */
	int32_t ppid;
	int32_t ptgid;
	uint32_t id_r;		/* ruid/rgid */
	uint32_t id_e;		/* euid/egid */
	uint32_t exit_code;
	uint32_t exit_signal;
	uint32_t err;		/* ack only */
	char comm[16];
};

struct ec_order_stats {
	uint64_t events;	/* events taking part in the per-cpu check */
	unsigned int cpus;
	uint64_t inversions;
	uint64_t max_inversion_ns;
	uint64_t ties;
	uint64_t gaps;		/* seq jumps > 1 */
	uint64_t missing;	/* events lost in those jumps */
	uint64_t duplicates;	/* events sharing a stamp with another one */
};

/*
 * Per-cpu order: group by cpu, order by seq (u32 wrap-around aware) and
 * compare each stamp with the previous one on that cpu. Events with cpu
 * EC_CPU_NONE are left out of the per-cpu part, but not out of the
 * duplicate count. Returns 0, or -1 if memory ran out.
 */
int ec_check_order(const struct ec_event *ev, size_t n,
		   struct ec_order_stats *st);

/* Window check: 0 if before <= ts <= after + EC_SLACK_NS */
enum {
	EC_WIN_OK = 0,
	EC_WIN_EARLY = -1,
	EC_WIN_LATE = 1,
};
int ec_check_window(uint64_t ts, uint64_t before, uint64_t after);

/* Ack check: returns a mask of EC_ACK_* faults, 0 if the ack is right */
#define EC_ACK_ERR	0x01
#define EC_ACK_SEQ	0x02
#define EC_ACK_ACK	0x04
#define EC_ACK_CPU	0x08
#define EC_ACK_EARLY	0x10
#define EC_ACK_LATE	0x20
#define EC_ACK_WHAT	0x40
unsigned int ec_check_ack(const struct ec_event *ack, uint32_t req_seq,
			  uint32_t req_ack, uint64_t before, uint64_t after);
/* Human readable list of EC_ACK_* faults, e.g. "seq,cpu" */
const char *ec_ack_faults_str(unsigned int faults, char *buf, size_t len);

/*
 * Causal order for one pid, by stamp: the fork creating pid comes before
 * every other event of pid (its own id/sid/comm/ptrace/coredump/exec/exit
 * events and the forks of its children), and its exit after all of them.
 * A pid may be reused after its exit. Flags add the position of exec:
 * EC_CAUSAL_EXEC_FIRST: exec precedes the id/sid/comm/ptrace/coredump events
 * EC_CAUSAL_EXEC_LAST: exec follows the id/sid/comm events
 * Returns 0 if the order holds, else -1 with a reason in why.
 */
#define EC_CAUSAL_EXEC_FIRST	0x1
#define EC_CAUSAL_EXEC_LAST	0x2
int ec_check_causal(const struct ec_event *ev, size_t n, int32_t pid,
		    unsigned int flags, char *why, size_t whylen);

/*
 * Delta check between two stamps ts_a < ts_b that were caused interval_ns
 * apart (at least), userspace having measured user_delta_ns between the
 * same two causes.
 */
enum {
	EC_DELTA_OK = 0,
	EC_DELTA_SHORT,		/* stamps closer than the interval */
	EC_DELTA_OFF,		/* off from the userspace delta by > tolerance */
};
int ec_check_delta(uint64_t ts_a, uint64_t ts_b, uint64_t interval_ns,
		   uint64_t user_delta_ns);

const char *ec_what_str(uint32_t what);

#endif /* __CN_PROC_EVENT_CHECK_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the cn_proc event checks over crafted event streams.
 * Needs neither root nor any particular kernel.
 */
#include <stdbool.h>
#include <string.h>

#include "../kselftest.h"
#include "event_check.h"

#define MS	1000000ULL

static struct ec_event seq_ev(uint32_t cpu, uint32_t seq, uint64_t ts)
{
	struct ec_event e = {
		.cpu = cpu, .seq = seq, .ts = ts, .what = PROC_EVENT_EXEC,
	};

	return e;
}

static struct ec_event proc_ev(uint32_t what, int32_t pid, int32_t ppid,
			       uint64_t ts)
{
	struct ec_event e = {
		.what = what, .pid = pid, .tgid = pid, .ppid = ppid,
		.ptgid = ppid, .ts = ts,
	};

	return e;
}

static bool order(const struct ec_event *ev, size_t n,
		  struct ec_order_stats *st)
{
	return ec_check_order(ev, n, st) == 0;
}

static bool clean(const struct ec_order_stats *st)
{
	return !st->inversions && !st->ties && !st->gaps && !st->missing &&
	       !st->duplicates;
}

/* --- per-cpu order ------------------------------------------------- */

static bool t_order_good(void)
{
	/* two cpus interleaved in receive order, cpu 1 received unsorted */
	struct ec_event ev[] = {
		seq_ev(0, 10, 100), seq_ev(1, 501, 150), seq_ev(0, 11, 200),
		seq_ev(1, 500, 120), seq_ev(0, 12, 300), seq_ev(1, 502, 310),
	};
	struct ec_order_stats st;

	return order(ev, ARRAY_SIZE(ev), &st) && clean(&st) &&
	       st.cpus == 2 && st.events == 6;
}

static bool t_order_inversion(void)
{
	struct ec_event ev[] = {
		seq_ev(0, 1, 100), seq_ev(0, 2, 90), seq_ev(0, 3, 400),
		seq_ev(0, 4, 350), seq_ev(1, 7, 95),
	};
	struct ec_order_stats st;

	return order(ev, ARRAY_SIZE(ev), &st) && st.inversions == 2 &&
	       st.max_inversion_ns == 50 && !st.ties && !st.gaps;
}

static bool t_order_tie(void)
{
	struct ec_event ev[] = {
		seq_ev(3, 1, 100), seq_ev(3, 2, 100), seq_ev(3, 3, 101),
	};
	struct ec_order_stats st;

	return order(ev, ARRAY_SIZE(ev), &st) && st.ties == 1 &&
	       !st.inversions && st.duplicates == 1;
}

static bool t_order_gap(void)
{
	struct ec_event ev[] = {
		seq_ev(0, 5, 100), seq_ev(0, 8, 200), seq_ev(0, 9, 300),
		seq_ev(0, 11, 400),
	};
	struct ec_order_stats st;

	return order(ev, ARRAY_SIZE(ev), &st) && st.gaps == 2 &&
	       st.missing == 3 && !st.inversions && !st.ties;
}

static bool t_order_wrap_not_gap(void)
{
	/* received out of order across the wrap */
	struct ec_event ev[] = {
		seq_ev(2, 0xfffffffe, 100), seq_ev(2, 0, 300),
		seq_ev(2, 0xffffffff, 200), seq_ev(2, 1, 400),
	};
	struct ec_order_stats st;

	return order(ev, ARRAY_SIZE(ev), &st) && clean(&st);
}

static bool t_order_wrap_inversion(void)
{
	/* 0 follows 0xffffffff, so its lower stamp is an inversion */
	struct ec_event ev[] = {
		seq_ev(0, 0xffffffff, 200), seq_ev(0, 0, 150),
	};
	struct ec_order_stats st;

	return order(ev, ARRAY_SIZE(ev), &st) && st.inversions == 1 &&
	       st.max_inversion_ns == 50 && !st.gaps;
}

static bool t_order_wrap_gap(void)
{
	struct ec_event ev[] = {
		seq_ev(0, 0xfffffffe, 100), seq_ev(0, 1, 200),
	};
	struct ec_order_stats st;

	return order(ev, ARRAY_SIZE(ev), &st) && st.gaps == 1 &&
	       st.missing == 2 && !st.inversions;
}

static bool t_order_duplicate_across_cpus(void)
{
	struct ec_event ev[] = {
		seq_ev(0, 1, 100), seq_ev(1, 1, 100), seq_ev(0, 2, 200),
		seq_ev(1, 2, 300),
	};
	struct ec_order_stats st;

	return order(ev, ARRAY_SIZE(ev), &st) && st.duplicates == 1 &&
	       !st.ties && !st.inversions;
}

static bool t_order_ack_not_per_cpu(void)
{
	/* an ack (cpu -1, request seq) is outside the per-cpu sequences */
	struct ec_event ev[] = {
		seq_ev(0, 1, 100), seq_ev(EC_CPU_NONE, 1234, 50),
		seq_ev(0, 2, 200),
	};
	struct ec_order_stats st;

	return order(ev, ARRAY_SIZE(ev), &st) && clean(&st) &&
	       st.events == 2 && st.cpus == 1;
}

/* --- ack ------------------------------------------------------------ */

static struct ec_event good_ack(void)
{
	struct ec_event a = {
		.what = PROC_EVENT_NONE, .seq = 1234, .ack = 5679,
		.cpu = EC_CPU_NONE, .ts = 1000 * MS, .err = 0,
	};

	return a;
}

static bool ack_faults(const struct ec_event *a, unsigned int expect)
{
	return ec_check_ack(a, 1234, 5678, 999 * MS, 1001 * MS) == expect;
}

static bool t_ack_good(void)
{
	struct ec_event a = good_ack();
	bool ok = ack_faults(&a, 0);

	a.ts = 1001 * MS + EC_SLACK_NS;		/* inside the slack */
	return ok && ack_faults(&a, 0);
}

static bool t_ack_wrong_seq(void)
{
	struct ec_event a = good_ack();

	a.seq = 17;				/* per-cpu counter */
	return ack_faults(&a, EC_ACK_SEQ);
}

static bool t_ack_wrong_ack(void)
{
	struct ec_event a = good_ack();

	a.ack = 5678;
	return ack_faults(&a, EC_ACK_ACK);
}

static bool t_ack_wrong_cpu(void)
{
	struct ec_event a = good_ack();

	a.cpu = 1;
	return ack_faults(&a, EC_ACK_CPU);
}

static bool t_ack_err(void)
{
	struct ec_event a = good_ack();

	a.err = 12;
	return ack_faults(&a, EC_ACK_ERR);
}

static bool t_ack_outside_window(void)
{
	struct ec_event a = good_ack();
	bool ok;

	a.ts = 999 * MS - 1;
	ok = ack_faults(&a, EC_ACK_EARLY);
	a.ts = 1001 * MS + EC_SLACK_NS + 1;
	return ok && ack_faults(&a, EC_ACK_LATE);
}

static bool t_ack_base_kernel(void)
{
	/* what an unpatched kernel sends: per-cpu seq and real cpu */
	struct ec_event a = good_ack();
	char buf[64];

	a.seq = 3;
	a.cpu = 0;
	ec_ack_faults_str(ec_check_ack(&a, 1234, 5678, 999 * MS, 1001 * MS),
			  buf, sizeof(buf));
	return !strcmp(buf, "seq,cpu");
}

/* --- window --------------------------------------------------------- */

static bool t_window_good(void)
{
	return ec_check_window(100, 100, 200) == EC_WIN_OK &&
	       ec_check_window(200, 100, 200) == EC_WIN_OK &&
	       ec_check_window(200 + EC_SLACK_NS, 100, 200) == EC_WIN_OK;
}

static bool t_window_before(void)
{
	return ec_check_window(99, 100, 200) == EC_WIN_EARLY;
}

static bool t_window_after(void)
{
	return ec_check_window(201 + EC_SLACK_NS, 100, 200) == EC_WIN_LATE;
}

/* --- causal order --------------------------------------------------- */

static bool causal(const struct ec_event *ev, size_t n, int32_t pid,
		   unsigned int flags)
{
	char why[128];
	int ret = ec_check_causal(ev, n, pid, flags, why, sizeof(why));

	if (ret)
		ksft_print_msg("detected: %s\n", why);
	return ret == 0;
}

static bool t_causal_good(void)
{
	/* parent 10 forks 20, 20 execs, renames, forks 30, drops ids */
	struct ec_event ev[] = {
		proc_ev(PROC_EVENT_COMM, 20, 0, 400),
		proc_ev(PROC_EVENT_FORK, 20, 10, 100),
		proc_ev(PROC_EVENT_EXEC, 20, 0, 200),
		proc_ev(PROC_EVENT_SID, 20, 0, 300),
		proc_ev(PROC_EVENT_FORK, 30, 20, 500),
		proc_ev(PROC_EVENT_COREDUMP, 30, 20, 550),
		proc_ev(PROC_EVENT_EXIT, 30, 20, 560),
		proc_ev(PROC_EVENT_GID, 20, 0, 600),
		proc_ev(PROC_EVENT_UID, 20, 0, 700),
		proc_ev(PROC_EVENT_EXIT, 20, 10, 800),
	};

	return causal(ev, ARRAY_SIZE(ev), 20, EC_CAUSAL_EXEC_FIRST) &&
	       causal(ev, ARRAY_SIZE(ev), 30, 0);
}

static bool t_causal_exit_before_exec(void)
{
	struct ec_event ev[] = {
		proc_ev(PROC_EVENT_FORK, 20, 10, 100),
		proc_ev(PROC_EVENT_EXEC, 20, 0, 300),
		proc_ev(PROC_EVENT_EXIT, 20, 10, 200),
	};

	return !causal(ev, ARRAY_SIZE(ev), 20, EC_CAUSAL_EXEC_FIRST);
}

static bool t_causal_child_before_fork(void)
{
	struct ec_event ev[] = {
		proc_ev(PROC_EVENT_SID, 20, 0, 90),
		proc_ev(PROC_EVENT_FORK, 20, 10, 100),
		proc_ev(PROC_EVENT_EXIT, 20, 10, 200),
	};

	return !causal(ev, ARRAY_SIZE(ev), 20, 0);
}

static bool t_causal_grandchild_fork_before_fork(void)
{
	/* 20 forks 30 before 20's own fork was stamped */
	struct ec_event ev[] = {
		proc_ev(PROC_EVENT_FORK, 30, 20, 90),
		proc_ev(PROC_EVENT_FORK, 20, 10, 100),
	};

	return !causal(ev, ARRAY_SIZE(ev), 20, 0);
}

static bool t_causal_id_before_exec(void)
{
	struct ec_event ev[] = {
		proc_ev(PROC_EVENT_FORK, 20, 10, 100),
		proc_ev(PROC_EVENT_UID, 20, 0, 150),
		proc_ev(PROC_EVENT_EXEC, 20, 0, 200),
	};

	return !causal(ev, ARRAY_SIZE(ev), 20, EC_CAUSAL_EXEC_FIRST);
}

static bool t_causal_exec_last(void)
{
	/* load child: setsid and rename, then exec, then exit */
	struct ec_event good[] = {
		proc_ev(PROC_EVENT_FORK, 20, 10, 100),
		proc_ev(PROC_EVENT_SID, 20, 0, 110),
		proc_ev(PROC_EVENT_COMM, 20, 0, 120),
		proc_ev(PROC_EVENT_EXEC, 20, 0, 130),
		proc_ev(PROC_EVENT_EXIT, 20, 10, 140),
	};
	struct ec_event bad[] = {
		proc_ev(PROC_EVENT_FORK, 20, 10, 100),
		proc_ev(PROC_EVENT_SID, 20, 0, 110),
		proc_ev(PROC_EVENT_COMM, 20, 0, 130),
		proc_ev(PROC_EVENT_EXEC, 20, 0, 120),
	};

	return causal(good, ARRAY_SIZE(good), 20, EC_CAUSAL_EXEC_LAST) &&
	       !causal(bad, ARRAY_SIZE(bad), 20, EC_CAUSAL_EXEC_LAST);
}

static bool t_causal_pid_reuse(void)
{
	struct ec_event ev[] = {
		proc_ev(PROC_EVENT_FORK, 20, 10, 100),
		proc_ev(PROC_EVENT_EXIT, 20, 10, 200),
		proc_ev(PROC_EVENT_FORK, 20, 11, 300),
		proc_ev(PROC_EVENT_EXIT, 20, 11, 400),
	};
	struct ec_event bad[] = {
		proc_ev(PROC_EVENT_FORK, 20, 10, 100),
		proc_ev(PROC_EVENT_EXIT, 20, 10, 200),
		proc_ev(PROC_EVENT_COMM, 20, 0, 250),
		proc_ev(PROC_EVENT_FORK, 20, 11, 300),
	};

	return causal(ev, ARRAY_SIZE(ev), 20, 0) &&
	       !causal(bad, ARRAY_SIZE(bad), 20, 0);
}

/* --- delta ---------------------------------------------------------- */

static bool t_delta_good(void)
{
	return ec_check_delta(1000 * MS, 1101 * MS, 100 * MS, 103 * MS) ==
		EC_DELTA_OK &&
	       ec_check_delta(1000 * MS, 1250 * MS, 250 * MS, 250 * MS) ==
		EC_DELTA_OK;
}

static bool t_delta_too_short(void)
{
	return ec_check_delta(1000 * MS, 1090 * MS, 100 * MS, 100 * MS) ==
		EC_DELTA_SHORT &&
	       ec_check_delta(1100 * MS, 1000 * MS, 100 * MS, 100 * MS) ==
		EC_DELTA_SHORT;
}

static bool t_delta_wrong_unit(void)
{
	/* stamps in microseconds: 100 ms apart reads as 100000 "ns" */
	uint64_t a = 1000 * MS / 1000, b = 1100 * MS / 1000;

	return ec_check_delta(a, b, 100 * MS, 100 * MS) == EC_DELTA_SHORT &&
	       ec_check_delta(a * 1000000, b * 1000000, 100 * MS, 100 * MS) ==
		EC_DELTA_OFF;
}

static bool t_delta_wrong_clock(void)
{
	/* e.g. a clock that jumped 30 ms between the two stamps */
	return ec_check_delta(1000 * MS, 1130 * MS, 100 * MS, 100 * MS) ==
		EC_DELTA_OFF;
}

struct unit_test {
	const char *name;
	bool (*fn)(void);
};

#define T(f) { #f + 2, f }
static const struct unit_test tests[] = {
	T(t_order_good),
	T(t_order_inversion),
	T(t_order_tie),
	T(t_order_gap),
	T(t_order_wrap_not_gap),
	T(t_order_wrap_inversion),
	T(t_order_wrap_gap),
	T(t_order_duplicate_across_cpus),
	T(t_order_ack_not_per_cpu),
	T(t_ack_good),
	T(t_ack_wrong_seq),
	T(t_ack_wrong_ack),
	T(t_ack_wrong_cpu),
	T(t_ack_err),
	T(t_ack_outside_window),
	T(t_ack_base_kernel),
	T(t_window_good),
	T(t_window_before),
	T(t_window_after),
	T(t_causal_good),
	T(t_causal_exit_before_exec),
	T(t_causal_child_before_fork),
	T(t_causal_grandchild_fork_before_fork),
	T(t_causal_id_before_exec),
	T(t_causal_exec_last),
	T(t_causal_pid_reuse),
	T(t_delta_good),
	T(t_delta_too_short),
	T(t_delta_wrong_unit),
	T(t_delta_wrong_clock),
};

int main(void)
{
	size_t i;

	ksft_print_header();
	ksft_set_plan(ARRAY_SIZE(tests));
	for (i = 0; i < ARRAY_SIZE(tests); i++)
		ksft_test_result(tests[i].fn(), "%s\n", tests[i].name);
	ksft_finished();
}

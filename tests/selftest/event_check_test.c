// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of the selftest's event_check.c on crafted event streams
 * and kallsyms listings: every check passes good input and catches the bad
 * input it is there for. Not part of the selftest's posting: the kselftest
 * tree runs tests on the kernel under test, and has no place for host
 * tests of a test's own helpers. Built by make unit-tests against the
 * kselftest_harness.h of the newest line's source:
 *   cc -I SELFTESTS -I SELFTESTS/connector event_check_test.c \
 *      SELFTESTS/connector/event_check.c
 */
#include <string.h>
#include <linux/cn_proc.h>

#include "kselftest_harness.h"
#include "event_check.h"

#define MS	1000000ULL
#define REQ_ACK	5678

#define MSG_RX(c, s, t, r) \
	{ .cpu = (c), .seq = (s), .ts = (t), .rx = (r), .what = PROC_EVENT_EXEC }
#define MSG(c, s, t)	MSG_RX(c, s, t, t)
#define ACK(c, s, t, a, e) { .what = PROC_EVENT_NONE, .cpu = (c), .seq = (s), .ts = (t), \
			    .rx = (t), .ack = (a), .err = (e) }
/* pid p of parent (or tracer) pp */
#define EV_RX(w, p, pp, t, r) { .what = PROC_EVENT_##w, .pid = (p), .tgid = (p), \
				.ppid = (pp), .ptgid = (pp), .ts = (t), .rx = (r) }
#define EV(w, p, pp, t)	EV_RX(w, p, pp, t, t)

static const struct {
	const char *name;
	size_t n;
	struct ec_event ev[6];
	struct ec_stats want;
} order_cases[] = {
	{ "clean, cpu 1's first two received swapped", 6,
	  { MSG(0, 10, 100), MSG(1, 501, 150), MSG(0, 11, 200),
	    MSG(1, 500, 120), MSG(0, 12, 300), MSG(1, 502, 310) }, { .cpus = 2 } },
	{ "inversions", 5,
	  { MSG(0, 1, 100), MSG(0, 2, 90), MSG(0, 3, 400), MSG(0, 4, 350), MSG(1, 7, 95) },
	  { .cpus = 2, .inversions = 2, .max_inversion_ns = 50 } },
	{ "tie", 2, { MSG(3, 1, 100), MSG(3, 2, 100) }, { .cpus = 1, .ties = 1, .duplicates = 1 } },
	{ "gaps", 4, { MSG(0, 5, 100), MSG(0, 8, 200), MSG(0, 9, 300), MSG(0, 11, 400) },
	  { .cpus = 1, .gaps = 2, .losses = 3 } },
	{ "one stamp on two cpus", 2, { MSG(0, 1, 100), MSG(1, 1, 100) },
	  { .cpus = 2, .duplicates = 1 } },
	{ "wrap, received out of order", 4,
	  { MSG(2, 0, 300), MSG(2, 0xfffffffe, 100), MSG(2, 1, 400), MSG(2, 0xffffffff, 200) },
	  { .cpus = 1 } },
	{ "inversion across the wrap", 2, { MSG(0, 0xffffffff, 200), MSG(0, 0, 150) },
	  { .cpus = 1, .inversions = 1, .max_inversion_ns = 50 } },
	{ "gap across the wrap", 2, { MSG(0, 0xfffffffe, 100), MSG(0, 1, 200) },
	  { .cpus = 1, .gaps = 1, .losses = 2 } },
	{ "stamps ahead of the clock", 3,
	  { MSG_RX(0, 1, 100, 95), MSG_RX(0, 2, 200, 190), MSG(0, 3, 300) },
	  { .cpus = 1, .lead_ns = 10 } },
};

TEST(per_cpu_order)
{
	struct ec_stats st;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(order_cases); i++) {
		ASSERT_EQ(0, ec_check_order(order_cases[i].ev, order_cases[i].n, &st));
		EXPECT_EQ(0, memcmp(&st, &order_cases[i].want, sizeof(st)))
			TH_LOG("%s", order_cases[i].name);
	}
}

#define OURS(err)	ACK(1, 40, 110, REQ_ACK + 1, err)

/* ev[1] is ours, ev[0] another listener's, ev[3] the next of cpu 1 */
static const struct ec_event acks[4] = {
	ACK(0, 6, 100, 1, 0), OURS(0), MSG(0, 7, 105), MSG(1, 41, 120),
};

/* acks with ev[at] replaced by e, on ncpus cpus */
static const struct {
	int at;
	struct ec_event e;
	unsigned int ncpus, faults;
} ack_cases[] = {
	{ 1, ACK(1, 40, 110, REQ_ACK, 0), 2, EC_ACK_COUNT },	/* none */
	{ 0, ACK(0, 6, 100, REQ_ACK + 1, 0), 2, EC_ACK_COUNT },	/* two */
	{ 1, OURS(22), 2, EC_ACK_ERR },
	{ 1, OURS(0), 1, EC_ACK_CPU },
	{ 3, MSG(1, 42, 120), 2, EC_ACK_NEXT },
	{ 3, MSG(0, 41, 120), 2, EC_ACK_NEXT },	/* none next from cpu 1 */
	{ 3, MSG(1, 41, 110), 2, EC_ACK_ORDER },
	{ 3, MSG(1, 41, 109), 2, EC_ACK_ORDER },
};

TEST(ack)
{
	const struct ec_event *ack;
	struct ec_event ev[4];
	struct ec_stats st;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ack_cases); i++) {
		memcpy(ev, acks, sizeof(ev));
		ev[ack_cases[i].at] = ack_cases[i].e;
		EXPECT_EQ(ack_cases[i].faults,
			  ec_check_ack(ev, 4, REQ_ACK, ack_cases[i].ncpus, &ack))
			TH_LOG("case %zu", i);
	}
	memcpy(ev, acks, sizeof(ev));
	EXPECT_EQ(0U, ec_check_ack(ev, 4, REQ_ACK, 2, &ack));
	EXPECT_TRUE(ack == &ev[1]);
	/* part of its cpu's sequence like any message */
	ASSERT_EQ(0, ec_check_order(ev, 4, &st));
	EXPECT_EQ(0ULL, st.inversions);
	ev[3].ts = 100;
	ASSERT_EQ(0, ec_check_order(ev, 4, &st));
	EXPECT_EQ(1ULL, st.inversions);
}

static bool parent_is(const struct ec_event *e, const void *parent)
{
	return e->ppid == *(const int *)parent;
}

static bool comm_is(const struct ec_event *e, const void *comm)
{
	return !strcmp(e->comm, comm);
}

#define T0	(100 * MS)	/* the window: [T0, T0 + MS] */
#define RX	(200 * MS)

/* 10 forks 20 (ev[2]) in the window */
static const struct ec_event forks[3] = {
	EV(FORK, 21, 10, T0), EV(EXEC, 20, 0, T0 + 500), EV(FORK, 20, 10, T0 + 200),
};

/* forks with ev[at] replaced by e, the window ending at after */
static const struct {
	int at;
	struct ec_event e;
	unsigned long long after;
	int want;
} match_cases[] = {
	{ 2, EV(FORK, 22, 10, T0 + 200), T0 + MS, EC_MATCH_NONE },
	{ 0, EV(FORK, 20, 10, T0), T0 + MS, EC_MATCH_MANY },
	{ 2, EV(FORK, 20, 11, T0 + 200), T0 + MS, EC_MATCH_FIELDS },
	{ 2, EV(FORK, 20, 10, T0 + MS + EC_SLACK_NS), T0 + MS, EC_MATCH_OK },
	{ 2, EV(FORK, 20, 10, T0 + MS + EC_SLACK_NS + 1), T0 + MS, EC_MATCH_LATE },
	{ 2, EV(FORK, 20, 10, T0 - 1), T0 + MS, EC_MATCH_EARLY },
	/* exit: until the listener read it */
	{ 2, EV_RX(FORK, 20, 10, RX + EC_SLACK_NS, RX), EC_UNTIL_READ, EC_MATCH_OK },
	{ 2, EV_RX(FORK, 20, 10, RX + EC_SLACK_NS + 1, RX), EC_UNTIL_READ, EC_MATCH_LATE },
};

TEST(match_one)
{
	static const int parent = 10;
	struct ec_match m = { .what = PROC_EVENT_FORK, .pid = 20, .fields = parent_is,
			      .arg = &parent, .before = T0 };
	const struct ec_event *e;
	struct ec_event ev[3];
	size_t i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(match_cases); i++) {
		memcpy(ev, forks, sizeof(ev));
		ev[match_cases[i].at] = match_cases[i].e;
		m.after = match_cases[i].after;
		ret = ec_match_one(ev, 3, &m, &e);
		EXPECT_EQ(match_cases[i].want, ret) TH_LOG("case %zu", i);
		EXPECT_TRUE(ret != EC_MATCH_OK || e == &ev[2]);
	}

	/* two comm events of pid 20: select tells them apart */
	memcpy(ev, forks, sizeof(ev));
	ev[0] = (struct ec_event)EV(COMM, 20, 0, T0);
	ev[2] = (struct ec_event)EV(COMM, 20, 0, T0);
	strcpy(ev[0].comm, "a");
	strcpy(ev[2].comm, "b");
	m = (struct ec_match){ .what = PROC_EVENT_COMM, .pid = 20, .arg = "b", .after = T0 + MS };
	EXPECT_EQ(EC_MATCH_MANY, ec_match_one(ev, 3, &m, &e));
	m.select = comm_is;
	EXPECT_EQ(EC_MATCH_OK, ec_match_one(ev, 3, &m, &e));
	EXPECT_TRUE(e == &ev[2]);
	m.arg = "c";
	EXPECT_EQ(EC_MATCH_NONE, ec_match_one(ev, 3, &m, &e));
}

/* 10 forks 20, which sets its sid and forks 30; both exit */
static const struct ec_event family[7] = {
	EV(FORK, 20, 10, 100), EV(SID, 20, 0, 200), EV(FORK, 30, 20, 300), EV(EXEC, 30, 0, 400),
	EV(EXIT, 30, 20, 500), EV(EXIT, 20, 10, 600), EV(FORK, 40, 10, 50) /* not followed */,
};

/* family with the stamps of ev[1], ev[2] and ev[3] changed unless 0 */
static const struct {
	unsigned long long ts[3];
	long long bad;
} causal_cases[] = {
	{ { 100 }, 0 },			/* equal stamps tell no order */
	{ { 99 }, 1 },			/* child's event below its fork */
	{ { 0, 99 }, 1 },		/* grandchild forked before its parent */
	{ { 0, 0, 501 }, 1 },		/* event after the exit */
	{ { 50, 601, 501 }, 4 },	/* and 30's exec, exit below its fork */
};

TEST(causal_order)
{
	static const int pids[] = { 30, 20, 30 };
	struct ec_event ev[7];
	size_t i, k, checked;

	for (i = 0; i < ARRAY_SIZE(causal_cases); i++) {
		memcpy(ev, family, sizeof(ev));
		for (k = 0; k < 3; k++)
			if (causal_cases[i].ts[k])
				ev[k + 1].ts = causal_cases[i].ts[k];
		EXPECT_EQ(causal_cases[i].bad, ec_check_causal(ev, 7, pids, 3, &checked))
			TH_LOG("case %zu", i);
		EXPECT_EQ(2U, checked);
	}
	memcpy(ev, family, sizeof(ev));
	ev[6] = (struct ec_event)EV(FORK, 30, 10, 1000);	/* pid reused */
	EXPECT_EQ(0, ec_check_causal(ev, 7, pids, 3, &checked));
	EXPECT_EQ(1U, checked);
}

static size_t checked_dummy;

/* An earlier process of pid 30, forked before the recording, exits: not 30's */
TEST(causal_order_pid_wrapped)
{
	static const int pids[] = { 30, 20 };
	struct ec_event ev[8] = { EV(EXIT, 30, 5, 90) };

	memcpy(&ev[1], family, sizeof(family));
	EXPECT_EQ(0, ec_check_causal(ev, 8, pids, 2, &checked_dummy));
	ev[5].what = PROC_EVENT_NONE;	/* 30's own exit not received */
	EXPECT_EQ(0, ec_check_causal(ev, 8, pids, 2, &checked_dummy));
	/* still caught: an event received after the fork, stamped below it */
	ev[4].ts = 299;
	EXPECT_EQ(1, ec_check_causal(ev, 8, pids, 2, &checked_dummy));
}

#define DELTA(a, b, sleep, user) \
	ec_check_delta((a) * MS, (b) * MS, (sleep) * MS, (user) * MS)

TEST(delta)
{
	EXPECT_EQ(EC_DELTA_OK, DELTA(1000, 1101, 100, 103));
	EXPECT_EQ(EC_DELTA_SHORT, DELTA(1000, 1090, 100, 100));
	EXPECT_EQ(EC_DELTA_SHORT, DELTA(1100, 1000, 100, 100));
	/* microseconds instead of nanoseconds */
	EXPECT_EQ(EC_DELTA_SHORT, ec_check_delta(1000000, 1100000, 100 * MS, 100 * MS));
	/* a clock that jumped, or a wrong userspace measurement */
	EXPECT_EQ(EC_DELTA_OFF, DELTA(1000, 1130, 100, 100));
	EXPECT_EQ(EC_DELTA_OFF, DELTA(1000, 1100, 100, 79));
}

/* The probe that decides the order checks, on crafted listings */
static int probe(const char *listing)
{
	FILE *f = fmemopen((void *)listing, strlen(listing), "r");
	int ret = ec_stamps_in_order(f);

	fclose(f);
	return ret;
}

TEST(stamps_in_order)
{
	FILE *dir = fopen("/", "r");

	EXPECT_EQ(1, probe("ffffffff81000000 T _stext\n"
			   "ffffffff81234560 T ktime_stamp_ns\n"
			   "ffffffff82345600 b proc_event_stamps\n"
			   "ffffffff81234600 t cn_proc_mcast_ctl\n"));
	/* kptr_restrict: the addresses are zeros, the names are there */
	EXPECT_EQ(1, probe("0000000000000000 T ktime_get_ns\n0000000000000000 d proc_event_stamps\n"));
	EXPECT_EQ(1, probe("0000000000000000 b proc_event_stamps"));	/* no newline */
	/* the helper alone (patch 1 without patch 2) is no stamping */
	EXPECT_EQ(0, probe("ffffffff81234560 T ktime_stamp_ns\n"
			   "ffffffff81234600 t cn_proc_mcast_ctl\n"));
	/* only a name that matches whole counts */
	EXPECT_EQ(0, probe("ffffffff81234560 T ktime_get_ns\n"
			   "ffffffff81234568 b proc_event_stamps_test\n"
			   "ffffffff81234570 r __ksymtab_proc_event_stamps\n"
			   "ffffffff81234578 b xproc_event_stamps\n"
			   "proc_event_stamps\n"));
	EXPECT_EQ(0, probe(""));
	EXPECT_EQ(-1, ec_stamps_in_order(NULL));
	/* a read error (a directory): unknown, not "no" */
	ASSERT_NE(NULL, dir);
	EXPECT_EQ(-1, ec_stamps_in_order(dir));
	fclose(dir);
}

TEST_HARNESS_MAIN

// SPDX-License-Identifier: GPL-2.0
/*
 * The checks of the selftest (tools/testing/selftests/connector/
 * cn_proc_test.c) on the host: its own source, main() renamed, fed crafted
 * message streams, step windows and kallsyms listings; each verdict must
 * pass what it must and catch what it is there for. Not posted: the
 * kselftest tree runs tests on the kernel under test. make unit-tests builds
 * it against the newest line's kselftest_harness.h:
 *   cc -I SELFTESTS -I SELFTESTS/connector -I tools/testing/selftests/connector
 */
#define main cn_proc_test_main
#include "cn_proc_test.c"
#undef main

#include "kselftest_harness.h"

#define MS	1000000ULL
#define PL	100		/* pids[]: the test, its child, its exec'ed child */
#define PC	200
#define PX	300
#define MAXMSG	(NR_STEPS + 16)

/* A message: what, cpu, seq, stamp, then event_data's first words */
#define MSG(w, c, s, t, ...) (struct msg){ .seq = (s), .ev = {		\
	.what = PROC_EVENT_##w, .cpu = (c), .timestamp_ns = (t),	\
	.event_data.exit = { __VA_ARGS__ } } }

static struct step windows[NR_STEPS];
static struct msg m[MAXMSG];
static size_t n;

/* Step s's window: [s + 1, s + 1.5] ms; its event is stamped at AT(s) */
#define BEFORE(s)	(((s) + 1) * MS)
#define AT(s)		(BEFORE(s) + MS / 4)

static size_t add(struct msg msg)
{
	m[n] = msg;
	return n++;
}

/*
 * A run that passes every check: the ack, then a message of its cpu, the
 * fork, exec and exit of pid 400, then each step's event in its window,
 * on cpus 0 and 1 in turn, each cpu's seq rising by one.
 */
static void good_run(void)
{
	static const int data[NR_STEPS][4] = {
		[FORK] = { PL, PL, PC, PC }, [CORE] = { PX, PX, PL, PL },
		[UID] = { PC, PC, ID, ID }, [GID] = { PC, PC, ID, ID },
		[COMM] = { PL, PL }, [ATTACH] = { PC, PC, PL, PL },
		[EXEC] = { PC, PC }, [DETACH] = { PC, PC }, [SID] = { PC, PC },
		[EXIT_CODE] = { PC, PC, 3 << 8, SIGCHLD },
		[EXIT_SIGNAL] = { PX, PX, SIGABRT, SIGCHLD },
	};
	__u32 seq[2] = { 10, 50 };
	size_t s, i;

	st = windows;
	pids[0] = PL;
	pids[1] = PC;
	pids[2] = PX;
	n = 0;
	i = add(MSG(NONE, 0, seq[0]++, 10, 0));
	m[i].ack = REQ_ACK + 1;
	add(MSG(FORK, 0, seq[0]++, 20, PL, PL, 400, 400));
	add(MSG(EXEC, 1, seq[1]++, 30, 400, 400));
	add(MSG(EXIT, 1, seq[1]++, 40, 400, 400, 0, SIGCHLD, PL, PL));
	for (s = 0; s < NR_STEPS; s++) {
		windows[s] = (struct step){ 0, BEFORE(s), BEFORE(s) + MS / 2 };
		i = add(MSG(NONE, s % 2, seq[s % 2]++, AT(s), data[s][0],
			    data[s][1], data[s][2], data[s][3]));
		m[i].ev.what = kinds[s].what;
		if (kinds[s].what == PROC_EVENT_EXIT)	/* the parent, any */
			m[i].ev.event_data.exit.parent_pid = PL;
		if (kinds[s].what == PROC_EVENT_COMM)
			strcpy(m[i].ev.event_data.comm.comm, kinds[s].name);
	}
}

/* The message of step s in the good run */
static struct msg *of(int s)
{
	return &m[4 + s];
}

static bool all_ok(void)
{
	size_t s;

	for (s = 0; s < NR_STEPS; s++)
		if (!r.ok[s])
			return false;
	return r.ack_ok && r.ack_order && r.delta_ok && !r.causal &&
	       !r.inversions && !r.ties && !r.shared;
}

TEST(a_good_run_passes)
{
	good_run();
	analyse(m, n);
	EXPECT_TRUE(all_ok());
	EXPECT_EQ(2, r.procs);
	EXPECT_EQ(AT(UID) - AT(GID), r.delta);
}

TEST(ack)
{
	long cpus = sysconf(_SC_NPROCESSORS_CONF);

	good_run();
	m[0].ack = REQ_ACK;			/* another listener's */
	analyse(m, n);
	EXPECT_FALSE(r.ack_ok);
	good_run();
	add(m[0]);				/* two */
	analyse(m, n);
	EXPECT_FALSE(r.ack_ok);
	good_run();
	m[0].ev.event_data.ack.err = EINVAL;
	analyse(m, n);
	EXPECT_FALSE(r.ack_ok);
	good_run();
	m[0].ev.cpu = cpus;			/* no such cpu, nor its next */
	m[1].ev.cpu = cpus;
	analyse(m, n);
	EXPECT_TRUE(r.next == &m[1]);
	EXPECT_FALSE(r.ack_ok);
	good_run();
	m[1].seq++;				/* a seq skipped */
	analyse(m, n);
	EXPECT_FALSE(r.ack_ok);
	good_run();
	m[1].ev.cpu = 1;			/* then cpu 0's next: of FORK */
	analyse(m, n);
	EXPECT_FALSE(r.ack_ok);
	good_run();
	n = 1;					/* nothing after it */
	analyse(m, n);
	EXPECT_FALSE(r.ack_ok);
	EXPECT_FALSE(r.ack_order);
	/* its stamp not below the next message of its cpu */
	good_run();
	m[0].ev.timestamp_ns = 20;
	analyse(m, n);
	EXPECT_TRUE(r.ack_ok);
	EXPECT_FALSE(r.ack_order);
}

/* Each step's event: one, with its fields, stamped in its window */
TEST(steps)
{
	size_t s, w;

	for (s = 0; s < NR_STEPS; s++) {
		good_run();
		of(s)->ev.what = PROC_EVENT_NONE;	/* missing */
		analyse(m, n);
		EXPECT_FALSE(r.ok[s]) TH_LOG("%s missing", kinds[s].name);
		good_run();
		add(*of(s));				/* twice */
		analyse(m, n);
		EXPECT_FALSE(r.ok[s]) TH_LOG("%s twice", kinds[s].name);
		good_run();
		windows[s].err = EPERM;			/* the call failed */
		analyse(m, n);
		EXPECT_FALSE(r.ok[s]) TH_LOG("%s failed", kinds[s].name);
		good_run();
		of(s)->ev.timestamp_ns = BEFORE(s) - 1;	/* early */
		analyse(m, n);
		EXPECT_FALSE(r.ok[s]) TH_LOG("%s early", kinds[s].name);
		good_run();
		of(s)->ev.timestamp_ns = BEFORE(s);
		analyse(m, n);
		EXPECT_TRUE(r.ok[s]) TH_LOG("%s at the start", kinds[s].name);
		/* late: its lead over the clock is at most 1 ns a message */
		good_run();
		of(s)->ev.timestamp_ns = windows[s].after + n;
		analyse(m, n);
		EXPECT_TRUE(r.ok[s]) TH_LOG("%s leads by n", kinds[s].name);
		of(s)->ev.timestamp_ns = windows[s].after + n + 1;
		analyse(m, n);
		EXPECT_FALSE(r.ok[s]) TH_LOG("%s late", kinds[s].name);
		/* every field compared: the exit's parent only is not */
		for (w = 0; w < 6; w++) {
			good_run();
			((__u32 *)&of(s)->ev.event_data)[w] ^= 1;
			analyse(m, n);
			EXPECT_EQ(kinds[s].what == PROC_EVENT_EXIT && w >= 4,
				  r.ok[s]) TH_LOG("%s word %zu", kinds[s].name, w);
		}
		good_run();
		of(s)->ev.what = s == FORK ? PROC_EVENT_EXEC : PROC_EVENT_FORK;
		analyse(m, n);
		EXPECT_FALSE(r.ok[s]) TH_LOG("%s of another kind", kinds[s].name);
	}
	/* an exit sent after its parent reaped it names none */
	good_run();
	of(EXIT_CODE)->ev.event_data.exit.parent_pid = 0;
	of(EXIT_CODE)->ev.event_data.exit.parent_tgid = 0;
	analyse(m, n);
	EXPECT_TRUE(r.ok[EXIT_CODE]);
}

/* uid - gid, the measured interval: within the windows' bounds */
TEST(delta)
{
	good_run();
	of(UID)->ev.timestamp_ns = BEFORE(UID);
	of(GID)->ev.timestamp_ns = windows[GID].after + n;
	analyse(m, n);
	EXPECT_TRUE(r.delta_ok);
	EXPECT_EQ(r.lo, r.delta);
	good_run();
	of(UID)->ev.timestamp_ns = windows[UID].after + n;
	of(GID)->ev.timestamp_ns = BEFORE(GID);
	analyse(m, n);
	EXPECT_TRUE(r.delta_ok);
	EXPECT_EQ(r.hi, r.delta);
	good_run();
	windows[UID].before += MS;	/* the window moved, the stamp not */
	windows[UID].after += MS;
	analyse(m, n);
	EXPECT_FALSE(r.ok[UID]);
	EXPECT_FALSE(r.delta_ok);
	/* a stamp in its window cannot be out of the delta's bounds */
	good_run();
	of(GID)->ev.what = PROC_EVENT_NONE;
	analyse(m, n);
	EXPECT_FALSE(r.delta_ok);
}

TEST(causal_order)
{
	size_t i;

	good_run();
	m[2].ev.timestamp_ns = 19;	/* 400 execs before its fork */
	analyse(m, n);
	EXPECT_EQ(1, r.causal);
	good_run();
	m[2].ev.timestamp_ns = 20;	/* equal stamps tell no order */
	analyse(m, n);
	EXPECT_EQ(0, r.causal);
	good_run();
	i = add(MSG(COMM, 0, 99, 41, 400, 400));	/* after its exit */
	analyse(m, n);
	EXPECT_EQ(1, r.causal);
	m[i].ev.timestamp_ns = 40;
	analyse(m, n);
	EXPECT_EQ(0, r.causal);
	/* a fork is its parent's event: 400 forks after its exit */
	good_run();
	add(MSG(FORK, 0, 99, 50, 400, 400, 500, 500));
	analyse(m, n);
	EXPECT_EQ(1, r.causal);
	/* the pid forked again: the new process, after its fork, is fine */
	good_run();
	add(MSG(FORK, 0, 99, 50, PL, PL, 400, 400));
	i = add(MSG(EXEC, 0, 100, 60, 400, 400));
	analyse(m, n);
	EXPECT_EQ(0, r.causal);
	EXPECT_EQ(3, r.procs);
	m[i].ev.timestamp_ns = 45;	/* below the new fork, above the old */
	analyse(m, n);
	EXPECT_EQ(1, r.causal);
	/* a process not seen forked: its events are not checked */
	good_run();
	add(MSG(EXEC, 0, 99, 5, 600, 600));
	add(MSG(EXIT, 0, 100, 4, 600, 600));
	analyse(m, n);
	EXPECT_EQ(0, r.causal);
	/* the child's events against its fork, in the steps */
	good_run();
	of(SID)->ev.timestamp_ns = AT(FORK) - 1;
	windows[SID].before = 0;
	analyse(m, n);
	EXPECT_TRUE(r.ok[SID]);
	EXPECT_EQ(1, r.causal);
}

TEST(load_order)
{
	good_run();
	m[3].ev.timestamp_ns = 29;	/* cpu 1: 30, then 29 */
	analyse(m, n);
	EXPECT_EQ(1, r.inversions);
	EXPECT_EQ(0, r.ties);
	good_run();
	m[3].ev.timestamp_ns = 30;
	analyse(m, n);
	EXPECT_EQ(1, r.ties);
	EXPECT_EQ(1, r.shared);
	EXPECT_EQ(0, r.inversions);
	/* the same stamp on two cpus: shared, in order on each */
	good_run();
	m[2].ev.timestamp_ns = 20;
	analyse(m, n);
	EXPECT_EQ(1, r.shared);
	EXPECT_EQ(0, r.ties);
	EXPECT_EQ(0, r.inversions);
	/* per cpu: cpu 0's 20 after cpu 1's 30 is no inversion */
	good_run();
	m[1].ev.cpu = 1;
	m[2].ev.cpu = 0;
	m[2].ev.timestamp_ns = 15;
	analyse(m, n);
	EXPECT_EQ(0, r.inversions);
	/* a cpu out of range counts as one more */
	good_run();
	m[2].ev.cpu = 1000000;
	m[3].ev.cpu = 1000001;
	m[3].ev.timestamp_ns = 29;
	analyse(m, n);
	EXPECT_EQ(1, r.inversions);
}

/* The probe that decides the order checks, on crafted listings */
static bool listed(const char *text)
{
	return lists(fmemopen((void *)text, strlen(text), "r"),
		     "proc_event_stamps");
}

TEST(kallsyms)
{
	EXPECT_TRUE(listed("ffffffff81000000 T _stext\n"
			   "ffffffff81234560 T ktime_stamp_ns\n"
			   "ffffffff82345600 b proc_event_stamps\n"
			   "ffffffff81234600 t cn_proc_mcast_ctl\n"));
	/* kptr_restrict: zero addresses, the names are there */
	EXPECT_TRUE(listed("0000000000000000 d proc_event_stamps\n"));
	EXPECT_TRUE(listed("0000000000000000 b proc_event_stamps"));
	EXPECT_TRUE(listed("ffffffffc0001000 b proc_event_stamps\t[cn]\n"));
	/* the helper alone (the timekeeping patch without cn_proc's) */
	EXPECT_FALSE(listed("ffffffff81234560 T ktime_stamp_ns\n"
			    "ffffffff81234600 t cn_proc_mcast_ctl\n"));
	/* only a name that matches whole, in the name's column */
	EXPECT_FALSE(listed("ffffffff81234568 b proc_event_stamps_test\n"
			    "ffffffff81234570 r __ksymtab_proc_event_stamps\n"
			    "ffffffff81234578 b xproc_event_stamps\n"
			    "proc_event_stamps\n"
			    "proc_event_stamps b x\n"));
	EXPECT_FALSE(listed(""));
	EXPECT_FALSE(lists(NULL, "proc_event_stamps"));
	/* a read error (a directory): not listed */
	EXPECT_FALSE(lists(fopen("/", "r"), "proc_event_stamps"));
}

TEST_HARNESS_MAIN

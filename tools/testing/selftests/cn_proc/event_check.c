// SPDX-License-Identifier: GPL-2.0
/*
 * Checks over recorded process connector events, see event_check.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event_check.h"

struct order_item {
	uint32_t cpu;
	uint32_t seq;
	int64_t rel;		/* seq relative to the cpu's first seq */
	uint64_t ts;
	size_t idx;		/* receive order */
};

static int cmp_cpu_idx(const void *a, const void *b)
{
	const struct order_item *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int cmp_cpu_rel(const void *a, const void *b)
{
	const struct order_item *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->rel != y->rel)
		return x->rel < y->rel ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Sequence numbers wrap at 2^32: order them by their signed distance to
 * the first seq received on the same cpu, which is exact as long as a
 * recording spans less than 2^31 events per cpu.
 */
static void set_relative_seq(struct order_item *it, size_t n)
{
	uint32_t base = 0;
	size_t i;

	qsort(it, n, sizeof(*it), cmp_cpu_idx);
	for (i = 0; i < n; i++) {
		if (i == 0 || it[i].cpu != it[i - 1].cpu)
			base = it[i].seq;
		it[i].rel = (int32_t)(it[i].seq - base);
	}
	qsort(it, n, sizeof(*it), cmp_cpu_rel);
}

static void scan_cpu_order(const struct order_item *it, size_t n,
			   struct ec_order_stats *st)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const struct order_item *prev;
		int64_t step;

		if (i == 0 || it[i].cpu != it[i - 1].cpu) {
			st->cpus++;
			continue;
		}
		prev = &it[i - 1];
		step = it[i].rel - prev->rel;
		if (step > 1) {
			st->gaps++;
			st->missing += step - 1;
		}
		if (it[i].ts < prev->ts) {
			uint64_t by = prev->ts - it[i].ts;

			st->inversions++;
			if (by > st->max_inversion_ns)
				st->max_inversion_ns = by;
		} else if (it[i].ts == prev->ts) {
			st->ties++;
		}
	}
}

static int count_duplicates(const struct ec_event *ev, size_t n,
			    struct ec_order_stats *st)
{
	uint64_t *ts;
	size_t i;

	if (!n)
		return 0;
	ts = malloc(n * sizeof(*ts));
	if (!ts)
		return -1;
	for (i = 0; i < n; i++)
		ts[i] = ev[i].ts;
	qsort(ts, n, sizeof(*ts), cmp_u64);
	for (i = 1; i < n; i++)
		if (ts[i] == ts[i - 1])
			st->duplicates++;
	free(ts);
	return 0;
}

int ec_check_order(const struct ec_event *ev, size_t n,
		   struct ec_order_stats *st)
{
	struct order_item *it;
	size_t i, m = 0;

	memset(st, 0, sizeof(*st));
	it = malloc((n ? n : 1) * sizeof(*it));
	if (!it)
		return -1;
	for (i = 0; i < n; i++) {
		if (ev[i].cpu == EC_CPU_NONE)
			continue;
		it[m].cpu = ev[i].cpu;
		it[m].seq = ev[i].seq;
		it[m].ts = ev[i].ts;
		it[m].idx = i;
		m++;
	}
	st->events = m;
	set_relative_seq(it, m);
	scan_cpu_order(it, m, st);
	free(it);
	return count_duplicates(ev, n, st);
}

int ec_check_window(uint64_t ts, uint64_t before, uint64_t after)
{
	if (ts < before)
		return EC_WIN_EARLY;
	if (ts > after + EC_SLACK_NS)
		return EC_WIN_LATE;
	return EC_WIN_OK;
}

unsigned int ec_check_ack(const struct ec_event *ack, uint32_t req_seq,
			  uint32_t req_ack, uint64_t before, uint64_t after)
{
	unsigned int faults = 0;

	if (ack->what != PROC_EVENT_NONE)
		faults |= EC_ACK_WHAT;
	if (ack->err)
		faults |= EC_ACK_ERR;
	if (ack->seq != req_seq)
		faults |= EC_ACK_SEQ;
	if (ack->ack != req_ack + 1)
		faults |= EC_ACK_ACK;
	if (ack->cpu != EC_CPU_NONE)
		faults |= EC_ACK_CPU;
	switch (ec_check_window(ack->ts, before, after)) {
	case EC_WIN_EARLY:
		faults |= EC_ACK_EARLY;
		break;
	case EC_WIN_LATE:
		faults |= EC_ACK_LATE;
		break;
	}
	return faults;
}

const char *ec_ack_faults_str(unsigned int faults, char *buf, size_t len)
{
	static const char * const names[] = {
		"err", "seq", "ack", "cpu", "early", "late", "what",
	};
	size_t i, off = 0;

	if (!len)
		return buf;
	buf[0] = '\0';
	for (i = 0; i < sizeof(names) / sizeof(names[0]) && off < len; i++) {
		if (!(faults & (1U << i)))
			continue;
		off += snprintf(buf + off, len - off, "%s%s",
				off ? "," : "", names[i]);
	}
	return buf;
}

const char *ec_what_str(uint32_t what)
{
	switch (what) {
	case PROC_EVENT_NONE:		return "none";
	case PROC_EVENT_FORK:		return "fork";
	case PROC_EVENT_EXEC:		return "exec";
	case PROC_EVENT_UID:		return "uid";
	case PROC_EVENT_GID:		return "gid";
	case PROC_EVENT_SID:		return "sid";
	case PROC_EVENT_PTRACE:		return "ptrace";
	case PROC_EVENT_COMM:		return "comm";
	case PROC_EVENT_COREDUMP:	return "coredump";
	case PROC_EVENT_EXIT:		return "exit";
	}
	return "unknown";
}

/* Does ev belong to pid's life, and is it pid's birth? */
static int concerns(const struct ec_event *ev, int32_t pid, int *birth)
{
	*birth = 0;
	if (ev->what == PROC_EVENT_FORK) {
		if (ev->pid == pid) {
			*birth = 1;
			return 1;
		}
		return ev->ppid == pid;
	}
	if (ev->what == PROC_EVENT_NONE)
		return 0;
	return ev->pid == pid;
}

static int cmp_event_ts(const void *a, const void *b)
{
	const struct ec_event *x = *(const struct ec_event * const *)a;
	const struct ec_event *y = *(const struct ec_event * const *)b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	/* equal stamps: keep receive order, the array is in that order */
	return x < y ? -1 : x > y;
}

enum life { UNBORN, ALIVE, DEAD };

static int is_id_event(uint32_t what)
{
	return what == PROC_EVENT_UID || what == PROC_EVENT_GID ||
	       what == PROC_EVENT_SID || what == PROC_EVENT_COMM;
}

static int exec_misplaced(uint32_t what, int exec_seen, unsigned int flags)
{
	if ((flags & EC_CAUSAL_EXEC_FIRST) && !exec_seen)
		return is_id_event(what) || what == PROC_EVENT_PTRACE ||
		       what == PROC_EVENT_COREDUMP;
	if ((flags & EC_CAUSAL_EXEC_LAST) && exec_seen)
		return is_id_event(what);
	return 0;
}

static int walk_life(const struct ec_event **e, size_t m, int32_t pid,
		     unsigned int flags, char *why, size_t whylen)
{
	enum life state = UNBORN;
	int exec_seen = 0, birth;
	size_t i;

	for (i = 0; i < m; i++) {
		const char *w = ec_what_str(e[i]->what);
		uint64_t ts = e[i]->ts;

		concerns(e[i], pid, &birth);
		if (birth) {
			if (state == ALIVE) {
				snprintf(why, whylen,
					 "pid %d: fork at %llu while alive",
					 pid, (unsigned long long)ts);
				return -1;
			}
			state = ALIVE;
			exec_seen = 0;
			continue;
		}
		if (state != ALIVE) {
			snprintf(why, whylen, "pid %d: %s at %llu %s",
				 pid, w, (unsigned long long)ts,
				 state == UNBORN ? "before its fork" :
						   "after its exit");
			return -1;
		}
		if (e[i]->what == PROC_EVENT_EXIT) {
			state = DEAD;
		} else if (e[i]->what == PROC_EVENT_EXEC) {
			exec_seen = 1;
		} else if (exec_misplaced(e[i]->what, exec_seen, flags)) {
			snprintf(why, whylen, "pid %d: %s at %llu %s exec",
				 pid, w, (unsigned long long)ts,
				 exec_seen ? "after" : "before");
			return -1;
		}
	}
	return 0;
}

int ec_check_causal(const struct ec_event *ev, size_t n, int32_t pid,
		    unsigned int flags, char *why, size_t whylen)
{
	const struct ec_event **e;
	size_t i, m = 0;
	int birth, ret;

	if (whylen)
		why[0] = '\0';
	e = malloc((n ? n : 1) * sizeof(*e));
	if (!e) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	for (i = 0; i < n; i++)
		if (concerns(&ev[i], pid, &birth))
			e[m++] = &ev[i];
	qsort(e, m, sizeof(*e), cmp_event_ts);
	ret = walk_life(e, m, pid, flags, why, whylen);
	free(e);
	return ret;
}

int ec_check_delta(uint64_t ts_a, uint64_t ts_b, uint64_t interval_ns,
		   uint64_t user_delta_ns)
{
	uint64_t d, off;

	/* ts_a may be EC_SLACK_NS ahead of the clock, see EC_SLACK_NS */
	if (ts_b < ts_a || ts_b - ts_a + EC_SLACK_NS < interval_ns)
		return EC_DELTA_SHORT;
	d = ts_b - ts_a;
	off = d > user_delta_ns ? d - user_delta_ns : user_delta_ns - d;
	if (off > EC_DELTA_TOL_NS)
		return EC_DELTA_OFF;
	return EC_DELTA_OK;
}

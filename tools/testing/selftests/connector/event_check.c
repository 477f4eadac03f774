// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/cn_proc.h>

#include "event_check.h"

static int cmp_u64(unsigned long long x, unsigned long long y)
{
	return (x > y) - (x < y);
}

static int cmp_s64(long long x, long long y)
{
	return (x > y) - (x < y);
}

struct item {
	__u32 cpu, seq;
	long long rel;		/* seq relative to the first of its cpu */
	unsigned long long ts;
	size_t idx;		/* receive order */
};

static int cmp_item(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	if (x->cpu != y->cpu)
		return cmp_u64(x->cpu, y->cpu);
	if (x->rel != y->rel)
		return cmp_s64(x->rel, y->rel);
	return cmp_u64(x->idx, y->idx);
}

static int cmp_ts(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	return cmp_u64(x->ts, y->ts);
}

static void scan_cpus(const struct item *it, size_t n, struct ec_stats *st)
{
	const struct item *p;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!i || it[i].cpu != it[i - 1].cpu) {
			st->cpus++;
			continue;
		}
		p = &it[i - 1];
		if (it[i].rel - p->rel > 1) {
			st->gaps++;
			st->losses += it[i].rel - p->rel - 1;
		}
		st->ties += it[i].ts == p->ts;
		st->inversions += it[i].ts < p->ts;
		if (it[i].ts < p->ts && p->ts - it[i].ts > st->max_inversion_ns)
			st->max_inversion_ns = p->ts - it[i].ts;
	}
}

int ec_check_order(const struct ec_event *ev, size_t n, struct ec_stats *st)
{
	struct item *it = calloc(n + 1, sizeof(*it));
	__u32 base = 0;
	size_t i;

	memset(st, 0, sizeof(*st));
	if (!it)
		return -1;
	for (i = 0; i < n; i++) {
		it[i] = (struct item){ ev[i].cpu, ev[i].seq, 0, ev[i].ts, i };
		if (ev[i].ts > ev[i].rx && ev[i].ts - ev[i].rx > st->lead_ns)
			st->lead_ns = ev[i].ts - ev[i].rx;
	}
	/*
	 * Seqs wrap at 2^32: sort by distance to the cpu's first seq received
	 * (rel is 0 here)
	 */
	qsort(it, n, sizeof(*it), cmp_item);
	for (i = 0; i < n; i++) {
		if (!i || it[i].cpu != it[i - 1].cpu)
			base = it[i].seq;
		it[i].rel = (__s32)(it[i].seq - base);
	}
	qsort(it, n, sizeof(*it), cmp_item);
	scan_cpus(it, n, st);
	qsort(it, n, sizeof(*it), cmp_ts);
	for (i = 1; i < n; i++)
		st->duplicates += it[i].ts == it[i - 1].ts;
	free(it);
	return 0;
}

unsigned int ec_check_ack(const struct ec_event *ev, size_t n, __u32 req_ack,
			  unsigned int ncpus, const struct ec_event **ack)
{
	unsigned int faults = 0;
	size_t i, at = 0, count = 0;

	for (i = 0; i < n; i++)
		if (ev[i].what == PROC_EVENT_NONE &&
		    ev[i].ack == req_ack + 1 && !count++)
			at = i;
	*ack = count ? &ev[at] : NULL;
	if (count != 1)
		return EC_ACK_COUNT;
	if (ev[at].err)
		faults |= EC_ACK_ERR;
	if (ev[at].cpu >= ncpus)
		faults |= EC_ACK_CPU;
	/* one cpu's messages are sent, so received, in seq order */
	for (i = at + 1; i < n && ev[i].cpu != ev[at].cpu; i++)
		;
	if (i == n || ev[i].seq != ev[at].seq + 1)
		faults |= EC_ACK_NEXT;
	if (i < n && ev[i].ts <= ev[at].ts)
		faults |= EC_ACK_ORDER;
	return faults;
}

int ec_match_one(const struct ec_event *ev, size_t n, const struct ec_match *m,
		 const struct ec_event **found)
{
	const struct ec_event *e = NULL;
	unsigned long long after;
	size_t i, count = 0;

	for (i = 0; i < n; i++)
		if (ev[i].what == m->what && ev[i].pid == m->pid &&
		    (!m->select || m->select(&ev[i], m->arg)) && !count++)
			e = &ev[i];
	*found = e;
	if (count != 1)
		return count ? EC_MATCH_MANY : EC_MATCH_NONE;
	if (e->ts < m->before)
		return EC_MATCH_EARLY;
	after = m->after == EC_UNTIL_READ ? e->rx : m->after;
	if (e->ts > after + EC_SLACK_NS)
		return EC_MATCH_LATE;
	if (m->fields && !m->fields(e, m->arg))
		return EC_MATCH_FIELDS;
	return EC_MATCH_OK;
}

struct life {
	int pid;
	unsigned int forks;
	size_t fork_at;		/* receive order of the fork */
	unsigned long long born, died;
};

static int cmp_life(const void *a, const void *b)
{
	const struct life *x = a, *y = b;

	return cmp_s64(x->pid, y->pid);
}

static struct life *life_of(struct life *l, size_t n, int pid)
{
	struct life key = { .pid = pid };

	return bsearch(&key, l, n, sizeof(*l), cmp_life);
}

/*
 * Equal stamps tell no order: only a stamp strictly below the fork or
 * above the exit counts. A pid forked more than once is not checked. An
 * event received before the fork is of an earlier process of that pid
 * (pids wrap): a process's events are sent, so received, after its fork.
 */
long long ec_check_causal(const struct ec_event *ev, size_t n,
			  const int *pids, size_t npids, size_t *checked)
{
	struct life *l = calloc(npids + 1, sizeof(*l)), *p;
	long long bad = 0;
	size_t i, m = 0;

	if (!l)
		return -1;
	for (i = 0; i < npids; i++)
		l[i] = (struct life){ .pid = pids[i], .died = ~0ULL };
	qsort(l, npids, sizeof(*l), cmp_life);
	for (i = 0; i < npids; i++)
		if (!m || l[i].pid != l[m - 1].pid)
			l[m++] = l[i];
	for (i = 0; i < n; i++) {
		p = life_of(l, m, ev[i].pid);
		if (p && ev[i].what == PROC_EVENT_FORK) {
			p->forks++;
			p->fork_at = i;
			p->born = ev[i].ts;
		} else if (p && ev[i].what == PROC_EVENT_EXIT && p->forks) {
			p->died = ev[i].ts;
		}
	}
	for (i = 0; i < n; i++) {
		const struct ec_event *e = &ev[i];
		int pid = e->what == PROC_EVENT_FORK ? e->ppid : e->pid;

		p = life_of(l, m, pid);
		if (p && p->forks == 1 && i >= p->fork_at)
			bad += e->ts < p->born || e->ts > p->died;
	}
	for (*checked = 0, i = 0; i < m; i++)
		*checked += l[i].forks == 1;
	free(l);
	return bad;
}

int ec_check_delta(unsigned long long ts_a, unsigned long long ts_b,
		   unsigned long long sleep_ns, unsigned long long user_ns)
{
	unsigned long long d = ts_b - ts_a;

	/* ts_a may be ahead of the clock, see EC_SLACK_NS */
	if (ts_b < ts_a || d + EC_SLACK_NS < sleep_ns)
		return EC_DELTA_SHORT;
	if ((d > user_ns ? d - user_ns : user_ns - d) > EC_DELTA_TOL_NS)
		return EC_DELTA_OFF;
	return EC_DELTA_OK;
}

/* "ADDRESS TYPE NAME [MODULE]" a line: the name must match whole */
int ec_stamps_in_order(FILE *kallsyms)
{
	const size_t len = strlen(EC_STAMP_SYMBOL);
	char *line = NULL, *name;
	size_t size = 0;
	int found = 0;

	if (!kallsyms)
		return -1;
	while (!found && getline(&line, &size, kallsyms) > 0) {
		name = strchr(line, ' ');
		name = name ? strchr(name + 1, ' ') : NULL;
		/* the name ends the line, or a tab precedes the module */
		if (name)
			found = !strncmp(name + 1, EC_STAMP_SYMBOL, len) &&
				strchr(" \t\n", name[1 + len]);
	}
	free(line);
	return ferror(kallsyms) ? -1 : found;
}

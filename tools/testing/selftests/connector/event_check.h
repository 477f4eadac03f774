/* SPDX-License-Identifier: GPL-2.0 */
/* Checks over recorded cn_proc messages, no system calls: unit tested */
#ifndef __CN_PROC_EVENT_CHECK_H
#define __CN_PROC_EVENT_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>

/* A stamp may lead the clock by 1 ns per message stamped in one tick */
#define EC_SLACK_NS	1000000ULL
#define EC_DELTA_TOL_NS	20000000ULL	/* QEMU TCG scheduling noise */
#define EC_UNTIL_READ	(~0ULL)		/* ec_match.after: e->rx */

struct ec_event {
	__u32 seq, ack, cpu, what;	/* seq, ack: of the cn_msg */
	unsigned long long ts;		/* timestamp_ns */
	unsigned long long rx;		/* CLOCK_MONOTONIC after recv() */
	int pid, tgid;			/* child of a fork, tracee */
	int ppid, ptgid;		/* parent, tracer */
	__u32 id_r, id_e;		/* uid or gid, real and effective */
	__u32 exit_code, exit_signal, err;	/* err: of an ack */
	char comm[16];
};

struct ec_stats {
	unsigned long long cpus, inversions, max_inversion_ns, ties;
	unsigned long long duplicates;	/* messages sharing a stamp */
	unsigned long long gaps, losses; /* seq jumps, seqs missing in them */
	unsigned long long lead_ns;	/* largest ts - rx, 0 if never ahead */
};

/* Per-cpu order by seq (wrap-aware), uniqueness, lead; -1: no memory */
int ec_check_order(const struct ec_event *ev, size_t n, struct ec_stats *st);

#define EC_ACK_COUNT	0x01U	/* not exactly one with our ack + 1 */
#define EC_ACK_ERR	0x02U
#define EC_ACK_CPU	0x04U	/* not a possible cpu */
#define EC_ACK_NEXT	0x08U	/* next message of its cpu not seq + 1 */
#define EC_ACK_ORDER	0x10U	/* stamp not below that next message's */
unsigned int ec_check_ack(const struct ec_event *ev, size_t n, __u32 req_ack,
			  unsigned int ncpus, const struct ec_event **ack);

/* Exactly one event of what and pid that select takes, in the window */
typedef bool ec_pred(const struct ec_event *e, const void *arg);
struct ec_match {
	__u32 what;
	int pid;
	ec_pred *select, *fields;
	const void *arg;
	unsigned long long before, after;
};

enum {
	EC_MATCH_OK, EC_MATCH_NONE, EC_MATCH_MANY, EC_MATCH_EARLY,
	EC_MATCH_LATE, EC_MATCH_FIELDS,
};

int ec_match_one(const struct ec_event *ev, size_t n, const struct ec_match *m,
		 const struct ec_event **found);

/* Events of pids, children's forks, outside their life; -1: no memory */
long long ec_check_causal(const struct ec_event *ev, size_t n, const int *pids,
			  size_t npids, size_t *checked);

enum { EC_DELTA_OK, EC_DELTA_SHORT, EC_DELTA_OFF };
int ec_check_delta(unsigned long long ts_a, unsigned long long ts_b,
		   unsigned long long sleep_ns, unsigned long long user_ns);

/*
 * Whether the kernel stamps each message where send_msg() assigns its seq,
 * which the order checks need: the stamps' domain, a static object of
 * cn_proc.c that change adds, is in the kallsyms listing (with
 * CONFIG_KALLSYMS_ALL; names are listed whatever kptr_restrict says). Not
 * its helper ktime_stamp_ns(): a kernel can have the helper alone.
 * 1: listed, 0: not listed, -1: no listing (kallsyms NULL or unreadable).
 */
#define EC_STAMP_SYMBOL	"proc_event_stamps"
int ec_stamps_in_order(FILE *kallsyms);

#endif

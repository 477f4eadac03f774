// SPDX-License-Identifier: GPL-2.0
/*
 * Boot-time microbenchmark of ktime_get_ordered_ns() against ktime_get_ns(),
 * for `make bench`. The harness builds it into a test kernel only, as
 * kernel/time/ordered_ns_bench.c; it is not part of the series.
 *
 * Nanoseconds per call, with one CPU calling and with every online CPU
 * calling at once; the ordered helper on one domain shared by all callers,
 * as the process events connector uses it. Rounds alternate the two
 * functions and the median round is reported, in hundredths of a ns:
 *
 *   ordered_ns_bench: cpus=<n> ktime_get_ns=<c> ktime_get_ordered_ns=<c>
 */
#define pr_fmt(fmt) "ordered_ns_bench: " fmt

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/init.h>
#include <linux/kthread.h>
#include <linux/ktime_ordered.h>
#include <linux/math64.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/timekeeping.h>

#define BENCH_CALLS	100000
#define BENCH_ROUNDS	9

static __cacheline_aligned_in_smp struct ktime_ordered bench_domain;
static atomic_t bench_waiting;
static u64 bench_sink;

struct bench_worker {
	bool ordered;
	u64 elapsed_ns;
	struct completion done;
};

static int bench_worker_fn(void *data)
{
	struct bench_worker *w = data;
	u64 start, sum = 0;
	int i;

	/* Start together, so that the calls really overlap. */
	atomic_dec(&bench_waiting);
	while (atomic_read(&bench_waiting))
		cond_resched();

	preempt_disable();
	start = ktime_get_ns();
	if (w->ordered) {
		for (i = 0; i < BENCH_CALLS; i++)
			sum += ktime_get_ordered_ns(&bench_domain);
	} else {
		for (i = 0; i < BENCH_CALLS; i++)
			sum += ktime_get_ns();
	}
	w->elapsed_ns = ktime_get_ns() - start;
	preempt_enable();

	WRITE_ONCE(bench_sink, sum);
	complete(&w->done);
	return 0;
}

/* One round on the first @nr online CPUs: mean cost per call, in ns/100. */
static u64 bench_round(struct bench_worker *workers, unsigned int nr,
		       bool ordered)
{
	unsigned int started = 0, cpu, i;
	struct task_struct *task;
	u64 total = 0;

	cpus_read_lock();
	atomic_set(&bench_waiting, nr);
	for_each_online_cpu(cpu) {
		struct bench_worker *w;

		if (started == nr)
			break;
		w = &workers[started];
		w->ordered = ordered;
		init_completion(&w->done);
		task = kthread_run_on_cpu(bench_worker_fn, w, cpu,
					  "ordered_bench/%u");
		if (IS_ERR(task))
			break;
		started++;
	}
	cpus_read_unlock();
	/* Release the workers started, should some not have been. */
	atomic_sub(nr - started, &bench_waiting);

	for (i = 0; i < started; i++) {
		wait_for_completion(&workers[i].done);
		total += workers[i].elapsed_ns;
	}
	if (started != nr)
		return 0;
	return div_u64(total * 100, nr * BENCH_CALLS);
}

static int bench_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static void bench_cpus(struct bench_worker *workers, unsigned int nr)
{
	u64 plain[BENCH_ROUNDS], ordered[BENCH_ROUNDS];
	int r;

	for (r = 0; r < BENCH_ROUNDS; r++) {
		plain[r] = bench_round(workers, nr, false);
		ordered[r] = bench_round(workers, nr, true);
		if (!plain[r] || !ordered[r]) {
			pr_err("cpus=%u: could not start the workers\n", nr);
			return;
		}
	}
	sort(plain, BENCH_ROUNDS, sizeof(*plain), bench_cmp, NULL);
	sort(ordered, BENCH_ROUNDS, sizeof(*ordered), bench_cmp, NULL);
	pr_info("cpus=%u ktime_get_ns=%llu ktime_get_ordered_ns=%llu\n", nr,
		plain[BENCH_ROUNDS / 2], ordered[BENCH_ROUNDS / 2]);
}

static int __init ordered_ns_bench_init(void)
{
	unsigned int cpus = num_online_cpus();
	struct bench_worker *workers;

	workers = kcalloc(cpus, sizeof(*workers), GFP_KERNEL);
	if (!workers)
		return -ENOMEM;
	pr_info("start: %u calls per CPU and round, %u rounds\n", BENCH_CALLS,
		BENCH_ROUNDS);
	bench_cpus(workers, 1);
	if (cpus > 1)
		bench_cpus(workers, cpus);
	kfree(workers);
	return 0;
}
late_initcall(ordered_ns_bench_init);

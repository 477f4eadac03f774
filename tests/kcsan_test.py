#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of make kcsan (scripts/harness_kcsan.py): KCSAN's reports read
from crafted serial logs, the hook's lines, the series' symbols from
crafted patches, and each decision of the verdict, as data (each
problem's kind); and make results' section of it. The end-to-end cases
read tests/logs/'s boots with KCSAN's reports and the hook's lines added,
through the newest line's kunit_parser (KUNIT_TOOL, as results_test.py),
and are skipped without it."""

import contextlib
import dataclasses
import io
import os
import shutil
import sys
import tempfile
import unittest
from unittest import mock

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, 'scripts'))
sys.dont_write_bytecode = True

import harness  # noqa: E402
import harness_config  # noqa: E402
import harness_kcsan as kc  # noqa: E402
import harness_results  # noqa: E402
from harness_results import BootReport, InitMode, Part, Status  # noqa: E402

KUNIT_TOOL = os.environ.get('KUNIT_TOOL', '')
LOGS = os.path.join(TOP, 'tests', 'logs')
harness_config.LINES_AND_RUNS_DIR = os.path.join(TOP, 'tests', 'configs')
LINE = harness_config.load_lines()[0]
RUN = kc.kcsan_run(LINE)
BOOTS = {v: harness_config.Boot(LINE.name, RUN, v, harness_config.Expect())
	 for v in kc.VARIANTS}
MUTANT = kc.KCSAN_MUTANT
DOMAIN = 0xffffffff82e0c0c0


def printk(text, t=12.5):
	return f'[{t:12.6f}] {text}\n'


def race(a, b, access_a='write', access_b='read', addr=DOMAIN, frames_a=(), frames_b=(),
	 t=12.5):
	"""The lines of a KCSAN data-race report between A and B, as
	kernel/kcsan/report.c prints them (the pair in its order)."""
	first, second = sorted((a, b))
	lines = ['=' * 66, f'BUG: KCSAN: data-race in {first} / {second}', '',
		 f'{access_a} to 0x{addr:x} of 8 bytes by task 245 on cpu 1:',
		 f' {a}+0x3f/0x90', *(f' {f}+0x10/0x80' for f in frames_a), '',
		 f'{access_b} to 0x{addr:x} of 8 bytes by task 246 on cpu 0:',
		 f' {b}+0x2a/0x90', *(f' {f}+0x10/0x80' for f in frames_b), '',
		 'value changed: 0x0000000000000001 -> 0x0000000000000002', '',
		 'Reported by Kernel Concurrency Sanitizer on:',
		 'CPU: 0 UID: 0 PID: 246 Comm: sh Not tainted 7.3.4 #1 PREEMPT(full)',
		 'Hardware name: QEMU Standard PC (i440FX + PIIX, 1996)', '=' * 66]
	return [printk(l, t) for l in lines]


STORM_AT = 100.0


def hook_lines(kcsan='on', churn='rounds=90 listen=200 ignore=70 unknown=23 einval=23 '
	       'refilter=22 killed=22 exited=67 acks=150 events=9000 storm=5000 errors=0',
	       overlap='send|send=40 filter|mcast=3 mcast|send=9 send|release=2',
	       storm_overlap='send|send=400 release|send=3',
	       kallsyms=(('proc_event_stamps', DOMAIN),)):
	"""The hook's lines, and the kernel's message that marks the storm."""
	h = 'cn_proc-kcsan: '
	out = [f'{h}overlap {overlap}\n', f'{h}trace lost=0\n',
	       printk(f'{h}storm 30s', STORM_AT),
	       f'{h}storm overlap {storm_overlap}\n', f'{h}storm trace lost=5\n',
	       f'{h}kcsan {kcsan}\n', f'{h}churn: {churn}\n',
	       f'{h}stat enabled 1\n', f'{h}stat data_races 7\n']
	out += [f'{h}kallsyms {a:016x} {n}\n' for n, a in kallsyms]
	return out


SYMBOLS = kc.SeriesSymbols(added=frozenset({'ktime_stamp_ns', 'cn_netlink_has_listeners'}),
			   changed=frozenset({'send_msg', 'proc_fork_connector',
					      'cn_proc_mcast_ctl'}),
			   variables=frozenset({'proc_event_stamps'}))


def good_report(variant='patched', **changes):
	"""A BootReport of a kcsan boot that ran all it was asked to (what
	harness_results reads of a log), without kunit_parser."""
	cmdline = ' '.join(harness_config.kernel_cmdline(RUN, prog_args(variant)))
	parts = {p: Part('bash /kselftest/run_kselftest.sh -t connector:cn_proc_test', 0)
		 for p in RUN.parts()}
	r = BootReport(checks={'kunit:ktime_stamp_ns_increasing_test': Status.OK},
		       figures={'events': '5000'}, releases={}, parts=parts, kernel_reports=(),
		       init=InitMode('selftest', True), init_errors=(), clocksources=('tsc',),
		       kunit_errors=(), atomics=None, preempt=None, cpus=2, cmdline=cmdline)
	return dataclasses.replace(r, **changes)


def prog_args(variant):
	return ('-a',) if variant == 'base' else ()


def boot(variant='patched', races=(), others=(), facts_lines=None, report=None):
	lines = [l for r in races for l in r]
	return kc.KcsanBoot(variant, report or good_report(variant), tuple(kc.parse_races(lines)),
			    tuple(others), kc.guest_facts(hook_lines() if facts_lines is None
							  else facts_lines))


def judge(b, base_pairs=(), symbols=SYMBOLS):
	return [(p.kind, p.about) for p in
		kc.judge_boot(b, BOOTS[b.variant], prog_args(b.variant), symbols, set(base_pairs))]


# syzbot's KCSAN settings: google/syzkaller's dashboard/config/linux/bits/
# kcsan.yml (the upstream-kcsan instance's fragment), and the defaults of its
# generated upstream-kcsan.config for what kcsan.yml leaves alone.
SYZBOT_KCSAN = {
	'CONFIG_KCSAN': 'y', 'CONFIG_KCSAN_SELFTEST': 'y', 'CONFIG_KCSAN_EARLY_ENABLE': 'n',
	'CONFIG_KCSAN_NUM_WATCHPOINTS': '64', 'CONFIG_KCSAN_UDELAY_TASK': '80',
	'CONFIG_KCSAN_UDELAY_INTERRUPT': '20', 'CONFIG_KCSAN_DELAY_RANDOMIZE': 'y',
	'CONFIG_KCSAN_SKIP_WATCH': '4000', 'CONFIG_KCSAN_SKIP_WATCH_RANDOMIZE': 'y',
	'CONFIG_KCSAN_INTERRUPT_WATCHER': 'n', 'CONFIG_KCSAN_REPORT_ONCE_IN_MS': '3000',
	'CONFIG_KCSAN_REPORT_RACE_UNKNOWN_ORIGIN': 'n', 'CONFIG_KCSAN_STRICT': 'n',
	'CONFIG_KCSAN_REPORT_VALUE_CHANGE_ONLY': 'y',
	'CONFIG_KCSAN_ASSUME_PLAIN_WRITES_ATOMIC': 'n', 'CONFIG_KCSAN_IGNORE_ATOMICS': 'y',
	'CONFIG_KCSAN_PERMISSIVE': 'y'}


class Flavour(unittest.TestCase):
	def test_the_kcsan_flavour_is_syzbots(self):
		options = harness_config.kernel_options(RUN.arch, RUN.flavour)
		got = {k: v for k, v in options.items() if k.startswith('CONFIG_KCSAN')}
		self.assertEqual(got, SYZBOT_KCSAN)
		# debugfs, which turns it on; the boot test's preemption; syzbot's
		# unwinder, whose stacks name a report's functions.
		self.assertEqual((options['CONFIG_DEBUG_FS'], options['CONFIG_PREEMPT'],
				  options['CONFIG_UNWINDER_ORC'], options['CONFIG_UNWINDER_GUESS']),
				 ('y', 'y', 'y', 'n'))
		self.assertEqual((RUN.flavour, RUN.cpus, RUN.clients, RUN.mode),
				 ('kcsan', 2, True, 'selftest'))


class ParseRaces(unittest.TestCase):
	def test_each_report_its_pair_accesses_and_frames(self):
		lines = ['cn_proc-selftest: start\n', *race('ktime_stamp_ns', 'ktime_stamp_ns',
							     frames_a=('proc_exec_connector',)),
			 'some program output\n',
			 *race('cn_proc_mcast_ctl', 'cn_filter', access_a='write (marked)',
			       addr=0xffff888003a1c000, frames_b=('netlink_broadcast_filtered',
								   'cn_netlink_send_mult.isra.0'))]
		races = kc.parse_races(lines)
		self.assertEqual([r.pair for r in races],
				 [('ktime_stamp_ns', 'ktime_stamp_ns'), ('cn_filter', 'cn_proc_mcast_ctl')])
		a, b = races[1].accesses
		self.assertEqual((a.type, a.address, a.size, a.frames),
				 ('write (marked)', 0xffff888003a1c000, 8, ('cn_proc_mcast_ctl',)))
		self.assertEqual(b.frames, ('cn_filter', 'netlink_broadcast_filtered',
					    'cn_netlink_send_mult'))
		self.assertEqual(races[0].accesses[0].frames, ('ktime_stamp_ns', 'proc_exec_connector'))
		self.assertEqual(races[0].title, 'ktime_stamp_ns / ktime_stamp_ns')

	def test_a_race_of_unknown_origin_has_one_function(self):
		lines = [printk('=' * 66), printk('BUG: KCSAN: data-race in send_msg+0x1/0x9'),
			 printk(''),
			 printk('race at unknown origin, with read to 0xffff8880 of 4 bytes by task 1 '
				'on cpu 0:'), printk(' send_msg+0x1/0x9'), printk('=' * 66)]
		r, = kc.parse_races(lines)
		self.assertEqual((r.pair, r.accesses[0].address, r.accesses[0].frames),
				 (('send_msg',), 0xffff8880, ('send_msg',)))

	def test_a_line_without_printks_time_is_no_report(self):
		self.assertEqual(kc.parse_races(['BUG: KCSAN: data-race in a / b\n']), [])

	def test_other_reports_are_every_problem_but_kcsans(self):
		lines = [l for i in range(6) for l in race('a', 'b', t=10 + i)]
		lines += [printk('WARNING: CPU: 1 PID: 5 at kernel/foo.c:1 bar+0x1/0x2'),
			  printk('Oops: general protection fault')]
		self.assertEqual(kc.other_reports(lines),
				 ['WARNING: CPU: 1 PID: 5 at kernel/foo.c:1 bar+0x1/0x2',
				  'Oops: general protection fault'])
		self.assertEqual(kc.other_reports(race('a', 'b')), [])


class GuestFacts(unittest.TestCase):
	def test_the_hooks_lines(self):
		lines = hook_lines()
		lines[2] = lines[2].rstrip('\n') + '[   13.000000] printk cut in\n'
		f = kc.guest_facts(['cn_proc-kcsan:\n', *lines])
		self.assertEqual(f.kcsan, 'on')
		self.assertEqual(dict(f.churn)['killed'], 22)
		self.assertEqual(f.overlap('send', 'send', 'load'), 40)
		self.assertEqual(f.overlap('send', 'send', 'storm'), 400)
		self.assertEqual(f.overlap('send', 'send'), 440)
		self.assertEqual(f.overlap('release', 'send', 'load'), 2)
		self.assertEqual(f.overlap('send', 'release', 'load'), 2)
		self.assertEqual(f.overlap('send', 'release'), 5)
		self.assertEqual(f.overlap('mcast', 'send'), 9)
		self.assertEqual(f.overlap('filter', 'release'), 0)
		self.assertEqual(dict(f.kallsyms), {'proc_event_stamps': DOMAIN})
		self.assertEqual(dict(f.stats)['data_races'], 7)
		self.assertEqual((f.trace_lost, f.storm_trace_lost, f.storm_at), (0, 5, STORM_AT))

	def test_a_report_in_the_storm(self):
		f = kc.guest_facts(hook_lines())
		before, during = kc.parse_races(race('a', 'b', t=99.5) + race('a', 'b', t=100.5))
		self.assertEqual((f.in_storm(before), f.in_storm(during)), (False, True))
		self.assertFalse(kc.GuestFacts().in_storm(during))

	def test_nothing_reported(self):
		self.assertEqual(kc.guest_facts(['cn_proc-init: run=selftest clients=1\n']),
				 kc.GuestFacts())


PATCH = '''\
diff --git a/kernel/time/timekeeping.c b/kernel/time/timekeeping.c
--- a/kernel/time/timekeeping.c
+++ b/kernel/time/timekeeping.c
@@ -2805,6 +2806,12 @@ void ktime_get_real_ts64_mg(struct timespec64 *ts)
 	}
 }
 
+u64 ktime_stamp_ns(struct ktime_stamp_domain *domain)
+{
+	return 1;
+}
+EXPORT_SYMBOL_IF_KUNIT(ktime_stamp_ns);
+
 void ktime_get_coarse_ts64(struct timespec64 *ts)
 {
 	struct timekeeper *tk = &tk_core.timekeeper;
diff --git a/drivers/connector/cn_proc.c b/drivers/connector/cn_proc.c
--- a/drivers/connector/cn_proc.c
+++ b/drivers/connector/cn_proc.c
@@ -48,6 +49,9 @@ static DEFINE_PER_CPU(struct local_event, local_event) = {
 	.lock = INIT_LOCAL_LOCK(lock),
 };
 
+/* Orders timestamp_ns on all CPUs */
+static __cacheline_aligned_in_smp struct ktime_stamp_domain proc_event_stamps;
+
 static int cn_filter(struct sock *dsk, struct sk_buff *skb, void *data)
 {
 	__u32 what, exit_code, *ptr;
@@ -91,6 +95,7 @@ static inline void send_msg(struct cn_msg *msg)
 	local_lock(&local_event.lock);
 
 	msg->seq = __this_cpu_inc_return(local_event.count) - 1;
+	ev->timestamp_ns = ktime_stamp_ns(&proc_event_stamps);
 	local_unlock(&local_event.lock);
 }
 
@@ -127,7 +141,6 @@ void proc_fork_connector(struct task_struct *task)
 	msg = buffer_to_cn_msg(buffer);
-	ev->timestamp_ns = ktime_get_ns();
 	ev->what = PROC_EVENT_FORK;
@@ -363,7 +369,7 @@ void proc_exit_connector(struct task_struct *task)
  * values because it's not being returned via syscall return
  * mechanisms.
  */
-static void cn_proc_ack(int err, int rcvd_seq, int rcvd_ack)
+static void cn_proc_ack(int err, int rcvd_ack)
 {
 	struct cn_msg *msg;
 	struct proc_event *ev;
diff --git a/include/linux/timekeeping.h b/include/linux/timekeeping.h
--- a/include/linux/timekeeping.h
+++ b/include/linux/timekeeping.h
@@ -50,6 +51,10 @@ extern void ktime_get_real_ts64_mg(struct timespec64 *ts);
+struct ktime_stamp_domain {
+	atomic64_t last;
+};
+struct ktime_stamp_domain;
+u64 ktime_stamp_ns(struct ktime_stamp_domain *domain);
diff --git a/tools/testing/selftests/connector/cn_proc_test.c b/tools/testing/selftests/connector/cn_proc_test.c
--- /dev/null
+++ b/tools/testing/selftests/connector/cn_proc_test.c
@@ -0,0 +1,4 @@
+static int in_order;
+int main(void)
+{
+}
'''

CN_PROC = '''\
static inline void send_msg(struct cn_msg *msg)
{
	local_lock(&local_event.lock);
}

void proc_fork_connector(struct task_struct *task)
{
	send_msg(msg);
}

static void cn_proc_ack(int err, int rcvd_ack)
{
	send_msg(msg);
}

static void cn_proc_mcast_ctl(struct cn_msg *msg,
			      struct netlink_skb_parms *nsp)
{
out:
	cn_proc_ack(err, msg->ack);
}

static int cn_filter(struct sock *dsk, struct sk_buff *skb, void *data)
{
	return 0;
}

static void fork_again(void)
{
	proc_fork_connector(current);
}
'''


class SeriesSymbols(unittest.TestCase):
	def test_what_a_patch_adds_and_changes(self):
		plus, minus, bodies, variables = kc.patch_symbols([PATCH])
		self.assertEqual(plus, {'ktime_stamp_ns', 'cn_proc_ack'})
		self.assertEqual(minus, {'cn_proc_ack'})
		self.assertEqual(bodies, {'send_msg', 'proc_fork_connector', 'ktime_stamp_ns'})
		self.assertEqual(variables, {'proc_event_stamps'})

	def test_the_callers_that_may_inline_a_static_function(self):
		self.assertEqual(kc.inlining_callers([CN_PROC], {'send_msg'}),
				 {'proc_fork_connector', 'cn_proc_ack', 'cn_proc_mcast_ctl'})
		# proc_fork_connector() is global: its callers call it.
		self.assertEqual(kc.inlining_callers([CN_PROC], {'proc_fork_connector'}), set())
		self.assertEqual(set(kc.c_functions(CN_PROC)),
				 {'send_msg', 'proc_fork_connector', 'cn_proc_ack', 'cn_proc_mcast_ctl',
				  'cn_filter', 'fork_again'})

	def test_series_symbols_of_patches_and_a_tree(self):
		tmp = tempfile.mkdtemp()
		self.addCleanup(shutil.rmtree, tmp)
		patch = os.path.join(tmp, 'p.patch')
		with open(patch, 'w') as f:
			f.write(PATCH)
		os.makedirs(os.path.join(tmp, 'drivers', 'connector'))
		with open(os.path.join(tmp, 'drivers', 'connector', 'cn_proc.c'), 'w') as f:
			f.write(CN_PROC)
		s = kc.series_symbols([patch], tmp)
		self.assertEqual(s.added, {'ktime_stamp_ns'})
		self.assertEqual(s.changed, {'send_msg', 'proc_fork_connector', 'cn_proc_ack',
					     'cn_proc_mcast_ctl'})
		self.assertEqual(s.variables, {'proc_event_stamps'})

	def test_the_series_names_what_the_issue_names(self):
		s = kc.series_symbols(harness_config.series_patches(LINE.series_dir), '/nonexistent')
		self.assertLessEqual({'ktime_stamp_ns', 'cn_netlink_has_listeners'}, s.added)
		self.assertIn('send_msg', s.changed)
		self.assertEqual(s.variables, {'proc_event_stamps'})


class Verdict(unittest.TestCase):
	def test_a_boot_that_ran_all_it_was_asked_passes(self):
		self.assertEqual(judge(boot('patched')), [])
		self.assertEqual(judge(boot('base')), [])

	def test_a_race_that_involves_the_series_fails_patched(self):
		series = race('ktime_stamp_ns', 'ktime_stamp_ns')
		self.assertEqual(judge(boot('patched', [series])),
				 [('series_race', 'ktime_stamp_ns / ktime_stamp_ns')])
		# Named by a changed function of its pair, an added one of its
		# stacks, its address on a variable the series adds.
		for r in (race('cn_filter', 'cn_proc_mcast_ctl', addr=0x1234),
			  race('netlink_has_listeners', 'netlink_update_listeners', addr=0x1234,
			       frames_a=('cn_netlink_has_listeners',)),
			  race('memcpy', 'memset', addr=DOMAIN + 8)):
			with self.subTest(race=r[1]):
				self.assertEqual([k for k, _ in judge(boot('patched', [r]))],
						 ['series_race'])

	def test_a_race_base_has_too_is_a_finding_not_a_failure(self):
		r = race('cn_filter', 'cn_proc_mcast_ctl', addr=0x1234)
		self.assertEqual(judge(boot('patched', [r]), {('cn_filter', 'cn_proc_mcast_ctl')}), [])
		self.assertEqual(judge(boot('base', [r])), [])
		b = boot('base', [r])
		found = kc.findings([b, boot('patched', [r])], SYMBOLS)
		self.assertEqual(len(found), 1)
		self.assertIn('cn_filter / cn_proc_mcast_ctl (cn_proc_mcast_ctl)', found[0])

	def test_a_race_the_series_does_not_name_passes(self):
		for r in (race('pipe_read', 'pipe_write', addr=0x1234),
			  # a changed function in a stack only: the path, not the access
			  race('netlink_broadcast', 'netlink_rcv', addr=0x1234,
			       frames_a=('proc_fork_connector',)),
			  race('memcpy', 'memset', addr=DOMAIN + 64)):
			with self.subTest(race=r[1]):
				self.assertEqual(judge(boot('patched', [r])), [])

	def test_the_mutant_must_race_on_the_domain(self):
		self.assertEqual(judge(boot(MUTANT)), [('no_domain_race', 'proc_event_stamps')])
		on_heap = race('ktime_stamp_ns', 'ktime_stamp_ns', addr=0xffff888004000000)
		self.assertEqual(judge(boot(MUTANT, [on_heap])),
				 [('no_domain_race', 'proc_event_stamps')])
		self.assertEqual(judge(boot(MUTANT, [race('ktime_stamp_ns', 'ktime_stamp_ns')])), [])

	def test_a_kernel_with_the_series_must_list_its_variables(self):
		no_syms = hook_lines(kallsyms=())
		self.assertEqual(judge(boot('patched', facts_lines=no_syms)),
				 [('no_symbol', 'proc_event_stamps')])
		self.assertIn(('no_symbol', 'proc_event_stamps'),
			      judge(boot(MUTANT, [race('ktime_stamp_ns', 'ktime_stamp_ns')],
					 facts_lines=no_syms)))
		self.assertEqual(judge(boot('base', facts_lines=no_syms)), [])

	def test_kcsan_must_have_been_on(self):
		for v in kc.VARIANTS:
			self.assertIn(('kcsan_off', 'off'), judge(boot(v, facts_lines=hook_lines('off'))))
		self.assertIn(('kcsan_off', ''), judge(boot('base', facts_lines=[])))

	def test_the_churn_must_have_made_each_request(self):
		for c in kc.CHURN_COUNTS:
			lines = hook_lines(churn='listen=5 ignore=5 unknown=5 einval=5 killed=5 '
					   f'storm=5 {c}=0')
			with self.subTest(count=c):
				self.assertEqual(judge(boot('base', facts_lines=lines)), [('churn', c)])

	def test_each_pair_of_functions_must_have_run_at_once(self):
		for x, y in kc.OVERLAPS:
			words = ' '.join(f'{a}|{b}=3' for a, b in kc.OVERLAPS if (a, b) != (x, y))
			with self.subTest(pair=(x, y)):
				got = judge(boot('base', facts_lines=hook_lines(overlap=words,
										storm_overlap='')))
				self.assertEqual(got, [('overlap', f'{x}|{y}')])
				# Either before the storm or in it.
				got = judge(boot('base', facts_lines=hook_lines(
					overlap=words, storm_overlap=f'{y}|{x}=1')))
				self.assertEqual(got, [])

	def test_another_kernel_report_fails_any_boot(self):
		lines = race('a', 'b') + [printk('Kernel panic - not syncing: Fatal exception')]
		for v in kc.VARIANTS:
			b = boot(v, others=kc.other_reports(lines))
			self.assertIn(('kernel_report', 'Kernel panic - not syncing: Fatal exception'),
				      judge(b))

	def test_a_boot_that_did_not_run_all_it_was_asked_fails(self):
		hung = good_report(timed_out=True)
		self.assertIn(('boot', 'timed_out:'), judge(boot('patched', report=hung)))
		parts = dict(good_report().parts)
		del parts['cn_proc-clients']
		self.assertEqual(judge(boot('patched', report=good_report(parts=parts))),
				 [('boot', 'part_missing:cn_proc-clients')])
		unfinished = {**parts, 'cn_proc-clients': Part('sh', None)}
		self.assertEqual(judge(boot('patched', report=good_report(parts=unfinished))),
				 [('boot', 'part_unfinished:cn_proc-clients')])
		self.assertEqual(judge(boot('patched', report=good_report(cpus=1))),
				 [('boot', 'cpus:1')])
		self.assertEqual([k for k, _ in judge(boot('patched', report=good_report(
			cmdline='console=ttyS0')))], ['boot'])
		# The selftest's and the clients' own results are not judged here.
		failing = good_report(checks={'kunit:ktime_stamp_ns_increasing_test': Status.OK,
					      'load_order': Status.FAIL})
		self.assertEqual(judge(boot('patched', report=failing)), [])

	def test_judge_all_holds_patched_to_base(self):
		r = race('cn_filter', 'cn_proc_mcast_ctl', addr=0x1234)
		boots = [boot('base', [r]), boot('patched', [r]),
			 boot(MUTANT, [race('ktime_stamp_ns', 'ktime_stamp_ns')])]
		args = {v: prog_args(v) for v in kc.VARIANTS}
		self.assertEqual(kc.judge_all(boots, BOOTS, args, SYMBOLS),
				 {v: [] for v in kc.VARIANTS})
		boots[0] = boot('base')
		got = kc.judge_all(boots, BOOTS, args, SYMBOLS)
		self.assertEqual([p.kind for p in got['patched']], ['series_race'])


class Report(unittest.TestCase):
	def test_the_table_counts_each_pair_and_marks_the_series(self):
		r = race('cn_filter', 'cn_proc_mcast_ctl', addr=0x1234)
		other = race('pipe_read', 'pipe_write', addr=0x1234)
		boots = [boot('base', [r, r, other]), boot('patched', [r]),
			 boot(MUTANT, [race('ktime_stamp_ns', 'ktime_stamp_ns'),
				       race('ktime_stamp_ns', 'ktime_stamp_ns', t=STORM_AT + 1)])]
		verdicts = {'base': [], 'patched': [], MUTANT: []}
		rows = {l.split('|')[1].strip(): [c.strip() for c in l.split('|')[2:-1]]
			for l in kc.kcsan_table(boots, verdicts, SYMBOLS)}
		self.assertEqual(rows['cn_filter / cn_proc_mcast_ctl *'], ['2', '1', '-'])
		self.assertEqual(rows['ktime_stamp_ns / ktime_stamp_ns * (on proc_event_stamps)'],
				 ['-', '-', '2 (1 in the storm)'])
		self.assertEqual(rows['pipe_read / pipe_write'], ['1', '-', '-'])
		self.assertEqual(rows['as expected'], ['yes', 'yes', 'yes'])
		text = '\n'.join(kc.kcsan_report('t', boots, {**verdicts, 'patched': [
			kc.KcsanProblem('series_race', 'x', 'why')]}, SYMBOLS, 61))
		self.assertIn('UNEXPECTED: patched: why', text)
		self.assertIn('make kcsan: 2 of 3 boots as expected, in 1m1s', text)


@unittest.skipUnless(KUNIT_TOOL, 'needs KUNIT_TOOL (the newest line\'s tools/testing/kunit)')
class EndToEnd(unittest.TestCase):
	"""tests/logs/'s smp2 boots with KCSAN's reports and the hook's lines
	added, read and judged as make kcsan reads and judges its boots."""

	def kcsan_boot(self, log, variant, races=(), hook=None, cmdline_args=()):
		with open(os.path.join(LOGS, log), errors='replace') as f:
			lines = f.readlines()
		end = next(i for i, l in enumerate(lines) if 'cn_proc-init: clocksource' in l
			   and i > len(lines) // 2)
		lines[end:end] = [l for r in races for l in r] + \
			(hook_lines() if hook is None else hook)
		tmp = tempfile.mkdtemp()
		self.addCleanup(shutil.rmtree, tmp)
		path = os.path.join(tmp, 'boot.log')
		with open(path, 'w') as f:
			f.writelines(lines)
		reported = harness_results.parse_log(path, False, KUNIT_TOOL)
		b = kc.KcsanBoot(variant, reported, tuple(kc.parse_races(lines)),
				 tuple(kc.other_reports(lines)), kc.guest_facts(lines))
		return [(p.kind, p.about) for p in
			kc.judge_boot(b, BOOTS[variant], cmdline_args, SYMBOLS, set())]

	def test_kcsans_reports_do_not_fail_a_boot_but_by_the_verdict(self):
		self.assertEqual(self.kcsan_boot('x86_64-smp2-patched.log', 'patched'), [])
		many = [race('pipe_read', 'pipe_write', addr=0x1234, t=20 + i) for i in range(7)]
		self.assertEqual(self.kcsan_boot('x86_64-smp2-patched.log', 'patched', many), [])
		self.assertEqual(self.kcsan_boot('x86_64-smp2-patched.log', 'patched',
						 [race('ktime_stamp_ns', 'ktime_stamp_ns')]),
				 [('series_race', 'ktime_stamp_ns / ktime_stamp_ns')])

	def test_a_warning_after_many_kcsan_reports_fails(self):
		many = [race('pipe_read', 'pipe_write', addr=0x1234, t=20 + i) for i in range(7)]
		warning = [printk('WARNING: CPU: 0 PID: 1 at net/netlink/af_netlink.c:1 x+0x1/0x2')]
		self.assertEqual([k for k, _ in self.kcsan_boot('x86_64-smp2-patched.log', 'patched',
								 many + [warning])],
				 ['kernel_report'])

	def test_a_boot_without_the_hooks_lines_fails(self):
		self.assertEqual([k for k, _ in self.kcsan_boot('x86_64-smp2-patched.log', 'patched',
								 hook=[])],
				 ['kcsan_off'] + ['churn'] * len(kc.CHURN_COUNTS) +
				 ['overlap'] * len(kc.OVERLAPS) + ['no_symbol'])


class Command(unittest.TestCase):
	"""make kcsan's orchestration, nothing built or booted: which kernels,
	which boots, their timeout, the exit status and the report."""

	def kcsan(self, logs, boot_timeout=300):
		"""make kcsan with each variant's boot writing LOGS[variant]: the
		exit status, the kernels asked for, each boot's (argv, timeout),
		the report."""
		out = tempfile.mkdtemp()
		self.addCleanup(shutil.rmtree, out)
		opts = harness_config.Options(out=out, boot_timeout=boot_timeout)
		kernels, boots = [], []

		def boot_and_parse(argv, log, timeout, ktap_tool):
			boots.append((argv, timeout))
			variant = log.rsplit('.', 2)[-2]
			with open(log, 'w') as f:
				f.writelines(logs[variant])
			return good_report(variant)

		def tree_id(tree):
			return 'tree'
		with mock.patch.object(kc.Tree, 'prepare'), \
		     mock.patch.object(kc.Tree, 'id', property(tree_id)), \
		     mock.patch.object(kc.Kernels, 'ensure', lambda s, ks: kernels.extend(ks)), \
		     mock.patch.object(kc.Kernels, 'image', lambda s, k: f'/img/{k.variant}'), \
		     mock.patch.object(kc, 'series_symbols', return_value=SYMBOLS), \
		     mock.patch.object(kc, 'guest_initramfs', return_value='/initrd'), \
		     mock.patch.object(kc.harness_guest, 'accelerator', return_value='tcg'), \
		     mock.patch.object(kc.harness_boot, 'boot_and_parse', boot_and_parse), \
		     mock.patch.object(kc, 'describe', return_value='abc1234'), \
		     contextlib.redirect_stdout(io.StringIO()):
			status = kc.kcsan(opts, LINE, '/src')
		with open(os.path.join(out, 'kcsan', 'report.md')) as f:
			return status, kernels, boots, f.read()

	LOGS = {'base': hook_lines(), 'patched': hook_lines(),
		MUTANT: race('ktime_stamp_ns', 'ktime_stamp_ns') + hook_lines()}

	def test_base_patched_and_the_mutant_of_the_kcsan_flavour_each_boot_once(self):
		status, kernels, boots, report = self.kcsan(self.LOGS, boot_timeout=100)
		self.assertEqual(status, 0, report)
		self.assertEqual([(k.arch.name, k.flavour, k.variant) for k in kernels],
				 [('x86_64', 'kcsan', v) for v in ('base', 'patched', MUTANT)])
		self.assertEqual([b[1] for b in boots], [100 * harness_config.KCSAN_TIMEOUT_SCALE] * 3)
		for (argv, _), v in zip(boots, kc.VARIANTS):
			self.assertEqual(argv[argv.index('-smp') + 1], '2')
			self.assertEqual(argv[argv.index('-kernel') + 1], f'/img/{v}')
			self.assertEqual(argv[argv.index('-initrd') + 1], '/initrd')
			self.assertIn('cnproc_clients=1', argv[argv.index('-append') + 1])
		self.assertIn('make kcsan: 3 of 3 boots as expected', report)

	def test_a_boot_not_as_expected_fails_the_command(self):
		logs = {**self.LOGS, MUTANT: hook_lines()}
		status, _, _, report = self.kcsan(logs)
		self.assertEqual(status, 1)
		self.assertIn('UNEXPECTED: kcsan-plain-stamp: no KCSAN report on a variable', report)
		logs = {**self.LOGS, 'patched': race('ktime_stamp_ns', 'ktime_stamp_ns') + hook_lines()}
		self.assertEqual(self.kcsan(logs)[0], 1)


class Results(unittest.TestCase):
	"""make results: make kcsan's section, from OUT/kcsan/ or kept from
	RESULTS, before make bench's."""

	OLD = ('Results of the last run\n\nthe tables\n\nmake kcsan ran at commit old1.\n\n'
	       'old kcsan\n\nmake bench ran at commit old2.\n\nold bench\n')

	def results(self, old, kcsan=None, tables=False):
		top = tempfile.mkdtemp()
		self.addCleanup(shutil.rmtree, top)
		out = os.path.join(top, 'out')
		os.makedirs(out)
		if tables:
			with open(os.path.join(out, 'commit'), 'w') as f:
				f.write('def5678\n')
			os.makedirs(os.path.join(out, '7.3', 'results'))
			with open(os.path.join(out, '7.3', 'results', 'x86_64.md'), 'w') as f:
				f.write('### Linux 7.3 (x) on x86_64, QEMU\n\n| | smp2 |\n|---|---|\n'
					'| load_order | ok / ok |\n')
		with open(os.path.join(top, 'RESULTS'), 'w') as f:
			f.write(old)
		if kcsan:
			os.makedirs(os.path.join(out, 'kcsan'))
			for name, text in (('report.md', kcsan), ('commit', 'abc1234\n')):
				with open(os.path.join(out, 'kcsan', name), 'w') as f:
					f.write(text)
		s = harness.Session(harness_config.Options(out=out), [LINE], [LINE], [])
		with mock.patch.object(harness, 'TOP', top), \
		     contextlib.redirect_stdout(io.StringIO()):
			status = harness.results_handler(s)
		self.assertEqual(status, 0)
		with open(os.path.join(top, 'RESULTS')) as f:
			return f.read()

	def test_a_run_of_make_kcsan_replaces_its_section(self):
		got = self.results(self.OLD, '## make kcsan: new\n')
		self.assertEqual(got, 'Results of the last run\n\nthe tables\n\n'
				 'make kcsan ran at commit abc1234.\n\n## make kcsan: new\n\n'
				 'make bench ran at commit old2.\n\nold bench\n')

	def test_a_run_of_make_kcsan_adds_its_section(self):
		old = self.OLD.partition('\nmake kcsan')[0] + '\n'
		got = self.results(old, '## make kcsan: new\n')
		self.assertEqual(got, 'Results of the last run\n\nthe tables\n\n'
				 'make kcsan ran at commit abc1234.\n\n## make kcsan: new\n')

	def test_a_section_without_a_run_is_kept_under_new_tables(self):
		got = self.results(self.OLD, tables=True)
		self.assertIn('\n\nmake kcsan ran at commit old1.\n\nold kcsan\n\n'
			      'make bench ran at commit old2.\n\nold bench\n', got)
		self.assertNotIn('the tables', got)
		self.assertIn('### Linux 7.3 (x) on x86_64\n', got)

	def test_results_without_any_run_are_refused(self):
		top = tempfile.mkdtemp()
		self.addCleanup(shutil.rmtree, top)
		s = harness.Session(harness_config.Options(out=top), [LINE], [LINE], [])
		with mock.patch.object(harness, 'TOP', top), self.assertRaises(
			harness.HarnessError):
			harness.results_handler(s)


if __name__ == '__main__':
	unittest.main()

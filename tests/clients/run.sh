#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# run.sh: the real process-connector clients (Debian's binaries, staged by
# scripts/harness_stage.py) against a workload, in the test guest, as root, after
# busybox --install. KTAP on stdout, one result per client; exit 0 when
# all pass, 1 otherwise. The init frames it with "cn_proc-clients: start"
# and "cn_proc-clients: exit STATUS". Bookworm's releases are in the root;
# sid's (keepalived_sid, cgrulesengd_sid) in /sid with sid's libc and
# libraries, run through sid's loader with --library-path. Before its
# result, each client's line "# cn_proc-staged: NAME PACKAGE VERSION
# SUITE" names the release that ran, from what the harness staged
# (/staged/KIND).
#
#   keepalived  (and keepalived_sid) tracks "/bin/busybox sleep 3141" for a VRRP instance on
#               dummy0: it must confirm the subscription ("proc_events has
#               confirmed it is configured"), gain the process's quorum when
#               it starts and lose it when it is killed, never log that the
#               kernel lacks proc events nor "Missed N messages", and stop
#               cleanly.
#   cgrulesengd (and cgrulesengd_sid; libcgroup's rules daemon) with
#               /etc/cgrules.conf moving /bin/ash (busybox's, which nothing
#               else runs) into the cgroup v2 /cn_proc_cg. The daemon is
#               stopped (SIGSTOP) while the workload "/bin/ash -c ..."
#               starts and forks a child, so that the child is forked
#               before its parent is moved, and continued: the daemon must
#               move the workload on its exec event, then the child on its
#               fork event, whose timestamp_ns is below the time it read
#               after moving the parent (cgre_was_parent_changed_when_forking()):
#               no other path moves that child. A child the workload forks
#               after it was moved must be in /cn_proc_cg too (the kernel's
#               inheritance), and the daemon must stop cleanly on SIGTERM.
#   extrace     -t: must show the exec and the exit of "/bin/busybox
#               usleep 300000" with a time= (the difference of the two
#               events' timestamps) of at least the sleep less extrace's
#               rounding, 0.299 s, and at most the window in which the shell
#               saw the workload live, read from /proc/timer_list
#               (CLOCK_MONOTONIC, the stamps' clock) before starting it and
#               after extrace showed its exit; and report no out-of-order
#               message (how extrace sees a lost one too). A fixed 0.320 s
#               bound fails under emulation on a busy host: exec and exit
#               cost 2 to 22 ms there. extrace reads /proc/PID/cmdline when
#               it handles the exec, while the process runs: the workload
#               and the probes are usleep, which leaves its argv alone
#               (busybox 1.35's sleep turns "0.3" into "0.1" for a moment
#               while it parses it).
#   extrace_killed  extrace killed with SIGKILL, which sends no
#               PROC_CN_MCAST_IGNORE: the connector's listener count stays
#               raised and every event is still built, with no socket in
#               the group. A kprobe event on ktime_stamp_ns() counts its
#               calls: a fork/exec/exit load must make none then. While
#               extrace listens, the same load must make one per event on
#               a kernel that stamps cn_proc's messages with it (whose
#               domain, proc_event_stamps, /proc/kallsyms lists), so the
#               count is shown to count there.
#   unbound_listener  a socket outside the CN_IDX_PROC group sends
#               PROC_CN_MCAST_LISTEN and stays open (cn_proc_request -w):
#               the count is raised, but no socket is in the group, so the
#               same load must make no ktime_stamp_ns() call.
#   proc_input_freed  200 sockets outside the group send
#               PROC_CN_MCAST_LISTEN and close; kmem trace events must show
#               a proc_input allocated by cn_proc_mcast_ctl() for each and
#               each one freed (none allocated before v6.6, whose sockets
#               have no state, cn_release).
#
# Nothing waits a fixed time: every wait polls a condition every 20 ms up
# to a deadline, and says what it was waiting for when that passes. The
# clients' log lines are printed as "# " diagnostics whatever the result.

W=/tmp/cn_proc-clients
HERE=$(dirname "$0")
DEADLINE=${cnproc_clients_deadline:-30}
failed=0

# The comparisons the results rest on. tests/decisions_test.py holds each
# to its cases on the host, where "CN_PROC_CLIENTS_CHECKS=1; . run.sh"
# defines them and returns.

# quorum_in_order GAINED LOST: keepalived's log lines: the quorum lost
# after it was gained, or one of them not logged (another check fails).
quorum_in_order() {
	[ -z "$1" ] || [ -z "$2" ] || [ "$1" -lt "$2" ]
}

# in_window MS WIN: extrace's exec to exit, MS, at least the sleep less
# extrace's rounding (299 ms) and at most the window in which the shell
# saw the workload live, WIN.
in_window() {
	[ "$1" -ge 299 ] && [ "$1" -le "$2" ]
}

# stamped_each CALLS EVENTS: at least a ktime_stamp_ns() call per event.
stamped_each() {
	[ "$1" -ge "$2" ]
}

# stamped_none BEFORE AFTER: the count of calls the same: none at all.
stamped_none() {
	[ "$2" = "$1" ]
}

# all_freed SOCKETS ALLOCATED FREED: a proc_input allocated for each socket
# and each one freed.
all_freed() {
	[ "$2" -eq "$1" ] && [ "$3" -eq "$2" ]
}

[ -z "${CN_PROC_CLIENTS_CHECKS:-}" ] || return 0

rm -rf "$W"
mkdir -p "$W"

diag() {
	echo "# $*"
}

# mono_ns: CLOCK_MONOTONIC in ns, the clock of the events' timestamps
# (ktime_get(), as /proc/timer_list shows it).
mono_ns() {
	sed -n '/^now at /{s/^now at \([0-9]*\) nsecs$/\1/p;q}' /proc/timer_list
}

# now_ms: milliseconds since boot (/proc/uptime has centiseconds).
now_ms() {
	read -r up _ </proc/uptime
	cs=${up#*.}
	cs=${cs#0}
	echo $((${up%.*} * 1000 + cs * 10))
}

# wait_for WHAT CMD...: poll CMD until it succeeds; after DEADLINE
# seconds, report WHAT and fail.
wait_for() {
	_what=$1
	shift
	_until=$(($(now_ms) + DEADLINE * 1000))
	while ! "$@"; do
		if [ "$(now_ms)" -ge "$_until" ]; then
			diag "timed out after ${DEADLINE}s waiting for $_what"
			return 1
		fi
		usleep 20000
	done
}

# alive PID: the process exists and is not a zombie. It can exit at any
# moment: stderr goes to /dev/null before the open of its stat is tried
# (redirections apply left to right).
alive() {
	{ read -r _ _ state _; } 2>/dev/null <"/proc/$1/stat" || return 1
	[ "$state" != Z ]
}

# shellcheck disable=SC2317 # called through wait_for
dead() {
	! alive "$1"
}

# stop PID NAME: SIGTERM, wait until gone, reap; the exit status.
stop() {
	kill -TERM "$1" 2>/dev/null
	if ! wait_for "$2 (pid $1) to exit after SIGTERM" dead "$1"; then
		kill -KILL "$1" 2>/dev/null
	fi
	wait "$1"
}

# log_has FILE ERE
log_has() {
	grep -qE "$2" "$1"
}

# line_of FILE ERE: number of the first line matching, or nothing.
line_of() {
	grep -nE -m1 "$2" "$1" | cut -d: -f1
}

# show FILE PREFIX: the file's lines as diagnostics.
show() {
	[ -s "$1" ] || {
		diag "$2 (empty)"
		return
	}
	sed "s/^/# $2/" "$1"
}

# begin NAME: the checks of one client start; fail WHY marks it failed and
# keeps the first reason; finish N ends it with KTAP result N.
begin() {
	client=$1
	verdict=ok
	why=
}

fail() {
	[ $verdict = ok ] && why=$1
	verdict=fail
	diag "$client: $1"
}

finish() {
	if [ $verdict = ok ]; then
		echo "ok $1 $client"
	else
		diag "$client: FAIL: $why"
		echo "not ok $1 $client"
		failed=1
	fi
}

# staged NAME KIND PACKAGE: the "# cn_proc-staged:" line of client NAME,
# PACKAGE of the fragment KIND; nothing if it was not staged.
staged() {
	_v=$(sed -n "s/^package $3 \([^ ]*\) \([^ ]*\)\$/\1 \2/p" "/staged/$2" 2>/dev/null)
	[ -z "$_v" ] || echo "# cn_proc-staged: $1 $3 $_v"
}

# sid_ld: the words that run a program of /sid through sid's loader with
# sid's libraries only (/staged/guest-clients-newest names them).
read -r _ _loader _libdir <<EOF_LOADER
$(grep '^loader ' /staged/guest-clients-newest 2>/dev/null)
EOF_LOADER
sid_ld="${_loader:-/sid/no-loader-staged} --library-path ${_libdir:-/sid}"

start_ms=$(now_ms)
echo "TAP version 13"
echo "1..8"

# shellcheck disable=SC2317 # called through wait_for
k_settled() {
	log_has "$klog" 'proc_events has confirmed it is configured|does not support proc events' ||
		! alive "$kpid"
}

# The dummy driver, built in, creates dummy0; keepalived will not use lo.
# It is made a multicast, ARP interface, as VRRP wants. /run is where
# keepalived keeps its files (its configuration copy, without tmpfs).
mkdir -p /run
ip link set lo up
ip link show dummy0 >/dev/null 2>&1 || ip link add dummy0 type dummy
ip link set dummy0 multicast on arp on
ip addr add 192.0.2.1/24 dev dummy0
ip link set dummy0 up
diag "$(ip -4 -o addr show dev dummy0 | sed 's/  */ /g; s/ *\\.*//')"

# keepalived_client N NAME KIND BIN CMD...: the keepalived check N, named
# NAME, of BIN (staged as fragment KIND), run as CMD.
keepalived_client() {
	k=$W/$2
	mkdir -p "$k"
	klog=$k/log
	begin "$2"
	staged "$2" "$3" keepalived
	kbin=$4
	_n=$1
	shift 4
	if ! [ -x "$kbin" ]; then
		fail "$kbin is not staged"
	else
		diag "$client: $("$@" --version 2>&1 | head -1)"
		# -n: no daemon, -P: VRRP only, -l -G: log to stderr, not syslog,
		# -D: detailed log (the subscription's confirmation needs it).
		"$@" -n -P -l -G -D -f "$HERE/keepalived.conf" \
			-p "$k/keepalived.pid" -r "$k/vrrp.pid" >"$klog" 2>&1 &
		kpid=$!
		# The subscription's ack: confirmed, or 100 ms later the warning.
		if wait_for "keepalived to confirm its proc_events subscription" k_settled; then
			alive "$kpid" || fail "keepalived exited at startup: $(tail -1 "$klog")"
			log_has "$klog" 'proc_events has confirmed it is configured' ||
				fail "no 'proc_events has confirmed it is configured'"
		else
			fail "keepalived did not get going"
		fi
		# Without the confirmation, still see whether the tracking works.
		if alive "$kpid" && log_has "$klog" 'proc_events has confirmed|does not support proc events'; then
			/bin/busybox sleep 3141 &
			wpid=$!
			diag "$client: started the tracked process, pid $wpid"
			wait_for "keepalived to gain the tracked process's quorum" log_has "$klog" \
				'Quorum gained for tracked process cn_proc_workload' ||
				fail "the tracked process going up was not seen"
			kill -TERM "$wpid"
			{ wait "$wpid"; } 2>/dev/null
			diag "$client: killed the tracked process"
			wait_for "keepalived to lose the tracked process's quorum" log_has "$klog" \
				'Quorum lost for tracked process cn_proc_workload' ||
				fail "the tracked process going down was not seen"
		fi
		if alive "$kpid"; then
			stop "$kpid" keepalived
			krc=$?
			diag "$client: exit status $krc after SIGTERM"
			[ $krc = 0 ] || fail "keepalived exited $krc"
			log_has "$klog" '^.*: Stopped Keepalived' ||
				fail "no 'Stopped Keepalived' line: not a clean stop"
		else
			wait "$kpid"
			fail "keepalived had exited by itself, status $?"
		fi
		gained=$(line_of "$klog" 'Quorum gained for tracked process cn_proc_workload')
		lost=$(line_of "$klog" 'Quorum lost for tracked process cn_proc_workload')
		quorum_in_order "$gained" "$lost" ||
			fail "quorum lost (line $lost) before it was gained (line $gained)"
		! log_has "$klog" 'does not support proc events' ||
			fail "keepalived says the kernel does not support proc events (it took no ack)"
		! log_has "$klog" 'Missed -?[0-9]+ messages' ||
			fail "keepalived missed messages"
		show "$klog" "$client: "
	fi
	finish "$_n"
}

keepalived_client 1 keepalived guest-clients /usr/sbin/keepalived /usr/sbin/keepalived

# --- extrace ----------------------------------------------------------------
e=$W/extrace
mkdir -p "$e"
eout=$e/out
eerr=$e/err
begin extrace
staged extrace guest-clients extrace

# probe: an exec that extrace reports once it listens. The probe lives
# 100 ms so that extrace can read its /proc entry.
# shellcheck disable=SC2317 # called through wait_for
probe() {
	alive "$epid" || return 0
	/bin/busybox usleep 100000
	log_has "$eout" '^ *[0-9]+\+ /bin/busybox usleep 100000$'
}

if ! [ -x /usr/bin/extrace ]; then
	fail "/usr/bin/extrace is not staged"
else
	: >"$eout"
	/usr/bin/extrace -t -o "$eout" 2>"$eerr" &
	epid=$!
	if wait_for "extrace to report an exec" probe && alive "$epid"; then
		# The workload lives between t0 and t1 on the stamps' clock: t1 is
		# read once extrace has shown the exit, so after it was stamped.
		t0=$(mono_ns)
		/bin/busybox usleep 300000 &
		spid=$!
		wait "$spid"
		wait_for "extrace to report pid $spid's exit" log_has "$eout" "^ *$spid- " ||
			fail "no exit line for the workload"
		t1=$(mono_ns)
		diag "extrace: workload /bin/busybox usleep 300000 was pid $spid"
		start=$(grep -E "^ *$spid\+ " "$eout")
		end=$(grep -E "^ *$spid- " "$eout")
		diag "extrace: $start"
		diag "extrace: $end"
		echo "$start" | grep -qE "^ *$spid\+ /bin/busybox usleep 300000$" ||
			fail "no exec line for the workload"
		t=$(echo "$end" | sed -n 's/.* exited status=0 time=\([0-9]*\.[0-9][0-9][0-9]\)s$/\1/p')
		if [ -z "$t" ] || [ -z "$t0" ] || [ -z "$t1" ]; then
			fail "no 'exited status=0 time=S.SSSs' for the workload (or no /proc/timer_list)"
		else
			ms=${t%.*}${t#*.}
			while [ "${ms#0}" != "$ms" ] && [ ${#ms} -gt 1 ]; do ms=${ms#0}; done
			# The window in ms, rounded up, plus extrace's rounding.
			win=$(((t1 - t0 + 999999) / 1000000 + 1))
			diag "extrace: exec to exit ${ms} ms: sleep 300 ms + $((ms - 300)); the shell saw it within a window of $((win - 1)) ms"
			if ! in_window "$ms" "$win"; then
				fail "exec to exit is ${t}s: not in [0.299 s, ${win} ms], the sleep and the window around it"
			fi
		fi
	else
		fail "extrace reported nothing"
	fi
	if alive "$epid"; then
		stop "$epid" extrace
		diag "extrace: exit status $? after SIGTERM"
	else
		wait "$epid"
		fail "extrace had exited by itself, status $?"
	fi
	! log_has "$eerr" 'out of order' ||
		fail "extrace reports out-of-order (or lost) messages"
	! log_has "$eerr" 'overflowed' ||
		fail "extrace's pid table overflowed"
	diag "extrace: $(wc -l <"$eout") lines of output, $(grep -cE '\+ /bin/busybox usleep 100000$' "$eout") probes"
	show "$eerr" "extrace stderr: "
fi
finish 2

# --- keepalived, sid's ------------------------------------------------------
# shellcheck disable=SC2086 # $sid_ld: words
keepalived_client 3 keepalived_sid guest-clients-newest /sid/usr/sbin/keepalived $sid_ld /sid/usr/sbin/keepalived

# --- cgrulesengd ------------------------------------------------------------
# The cgroup v2 hierarchy and the rule's cgroup (tests/clients/cgrules.conf);
# /etc/cgrules.conf is staged with the clients.
CG=/sys/fs/cgroup
CG_DEST=/cn_proc_cg
mkdir -p "$CG"
mount -t cgroup2 cgroup2 "$CG" || diag "cannot mount cgroup2 on $CG"
# libcgroup moves a process into a v2 cgroup through a controller (the
# rule's), and only one its parent enables for its children.
echo +pids >"$CG/cgroup.subtree_control" || diag "cannot enable the pids controller below $CG"
mkdir -p "$CG$CG_DEST"
diag "cgroup2: controllers: $(cat "$CG/cgroup.controllers" 2>&1), enabled below the root: $(cat "$CG/cgroup.subtree_control" 2>&1)"

# cgroup_of PID: the process's cgroup v2 path ("0::PATH").
cgroup_of() {
	sed -n 's/^0:://p' "/proc/$1/cgroup" 2>/dev/null
}

# shellcheck disable=SC2317 # called through wait_for
in_dest() {
	[ "$(cgroup_of "$1")" = "$CG_DEST" ]
}

# shellcheck disable=SC2317 # called through wait_for
c_ready() {
	log_has "$clog" '^Message sent' || ! alive "$cpid"
}

# cgrulesengd_client N NAME KIND BIN CMD...: the cgrulesengd check N,
# named NAME, of BIN (staged as fragment KIND), run as CMD.
cgrulesengd_client() {
	c=$W/$2
	mkdir -p "$c"
	clog=$c/log
	begin "$2"
	staged "$2" "$3" cgroup-tools
	cbin=$4
	_n=$1
	shift 4
	if ! [ -x "$cbin" ]; then
		fail "$cbin is not staged"
		finish "$_n"
		return
	fi
	# It reads /etc/cgconfig.conf (staged) and /etc/cgconfig.d, and does
	# not start without both.
	mkdir -p /etc/cgconfig.d
	# -d: no daemon, everything logged to stdout (flushed a line at a
	# time), the subscription's "Message sent" too.
	: >"$clog"
	"$@" -d >"$clog" 2>&1 &
	cpid=$!
	if ! wait_for "$client to subscribe to the process events" c_ready || ! alive "$cpid"; then
		fail "$client did not get going"
	else
		# Stopped, the daemon moves nothing until the workload has forked
		# its first child: the child's fork precedes its parent's move.
		kill -STOP "$cpid"
		rm -f "$c/early" "$c/late"
		mkfifo "$c/go" "$c/hold"
		/bin/ash -c "(read -r x <$c/hold) & echo \$! >$c/early; read -r x <$c/go
			(read -r x <$c/hold) & echo \$! >$c/late; wait" &
		wpid=$!
		wait_for "the workload's first child" test -s "$c/early" ||
			fail "the workload did not fork"
		early=$(cat "$c/early")
		diag "$client: workload /bin/ash pid $wpid in $(cgroup_of "$wpid"), its first child pid $early in $(cgroup_of "$early"), the daemon stopped"
		if in_dest "$wpid" || in_dest "$early"; then
			fail "the workload was moved while the daemon was stopped"
		fi
		kill -CONT "$cpid"
		wait_for "$client to move the workload (pid $wpid) to $CG_DEST" in_dest "$wpid" ||
			fail "the workload was not moved: it is in $(cgroup_of "$wpid")"
		wait_for "$client to move the child forked before its parent's move (pid $early) to $CG_DEST" \
			in_dest "$early" ||
			fail "the child forked before its parent was moved stayed in $(cgroup_of "$early")"
		echo go >"$c/go"
		wait_for "the workload's second child" test -s "$c/late" ||
			fail "the workload did not fork again"
		late=$(cat "$c/late")
		in_dest "$late" ||
			fail "the child forked after its parent was moved is in $(cgroup_of "$late")"
		diag "$client: now the workload is in $(cgroup_of "$wpid"), the child forked before its move in $(cgroup_of "$early"), the one forked after it in $(cgroup_of "$late")"
		kill -TERM ${early:+"$early"} ${late:+"$late"} "$wpid" 2>/dev/null
		{ wait "$wpid"; } 2>/dev/null
		# libcgroup logs "Cgroup change ... OK" when no rule matches too.
		log_has "$clog" "Will move pid $wpid to cgroup 'cn_proc_cg'" ||
			fail "no 'Will move pid $wpid to cgroup 'cn_proc_cg'' (the workload)"
		log_has "$clog" "Will move pid $early to cgroup 'cn_proc_cg'" ||
			fail "no 'Will move pid $early to cgroup 'cn_proc_cg'' (the child forked before the move)"
	fi
	if alive "$cpid"; then
		stop "$cpid" "$client"
		crc=$?
		diag "$client: exit status $crc after SIGTERM"
		[ $crc = 0 ] || fail "$client exited $crc"
		log_has "$clog" '^Stopped CGroup Rules Engine Daemon' ||
			fail "no 'Stopped CGroup Rules Engine Daemon': not a clean stop"
	else
		wait "$cpid"
		fail "$client had exited by itself, status $?"
	fi
	rm -f "$c/go" "$c/hold"
	# Without its scan at startup of every process, which no rule matches.
	grep -vE 'Scanned proc values|No rule found to match PID: [0-9]+, UID' "$clog" >"$clog.shown"
	show "$clog.shown" "$client: "
	finish "$_n"
}

cgrulesengd_client 4 cgrulesengd guest-clients /usr/sbin/cgrulesengd /usr/sbin/cgrulesengd
# shellcheck disable=SC2086 # $sid_ld: words
cgrulesengd_client 5 cgrulesengd_sid guest-clients-newest /sid/usr/sbin/cgrulesengd $sid_ld /sid/usr/sbin/cgrulesengd

# --- a listener killed ------------------------------------------------------
k=$W/extrace_killed
mkdir -p "$k"
TRACING=/sys/kernel/tracing
LOAD=100
begin extrace_killed
staged extrace_killed guest-clients extrace

# stamps: ktime_stamp_ns() calls so far, from the kprobe event's profile.
stamps() {
	awk '$1 == "cn_proc_stamp" { print $2 }' "$TRACING/kprobe_profile"
}

# load: LOAD fork/exec/exits, 3 LOAD events.
load() {
	_i=0
	while [ $_i -lt $LOAD ]; do
		/bin/busybox true
		_i=$((_i + 1))
	done
}

# shellcheck disable=SC2317 # called through wait_for
kprobe() {
	alive "$kpid" || return 0
	/bin/busybox usleep 100000
	log_has "$k/out" '^ *[0-9]+\+ /bin/busybox usleep 100000$'
}

grep -q " $TRACING tracefs " /proc/mounts || mount -t tracefs tracefs "$TRACING" 2>"$k/err"
if ! [ -x /usr/bin/extrace ]; then
	fail "/usr/bin/extrace is not staged"
elif ! echo 'p:cn_proc_stamp ktime_stamp_ns' >>"$TRACING/kprobe_events" ||
	! echo 1 >"$TRACING/events/kprobes/cn_proc_stamp/enable"; then
	fail "no kprobe event on ktime_stamp_ns() ($(cat "$k/err" 2>/dev/null))"
else
	: >"$k/out"
	/usr/bin/extrace -t -o "$k/out" 2>"$k/err" &
	kpid=$!
	if wait_for "extrace to report an exec" kprobe && alive "$kpid"; then
		s0=$(stamps)
		load
		s1=$(stamps)
		if grep -q ' proc_event_stamps$' /proc/kallsyms; then
			diag "extrace_killed: $((s1 - s0)) ktime_stamp_ns() calls during $((3 * LOAD)) events with extrace listening"
			stamped_each $((s1 - s0)) $((3 * LOAD)) ||
				fail "$((s1 - s0)) ktime_stamp_ns() calls for $((3 * LOAD)) events with a listener"
		else
			diag "extrace_killed: no proc_event_stamps in /proc/kallsyms: cn_proc does not stamp with ktime_stamp_ns(); $((s1 - s0)) calls during $((3 * LOAD)) events with extrace listening"
		fi
	else
		fail "extrace reported nothing"
	fi
	kill -KILL "$kpid" 2>/dev/null
	wait "$kpid"
	diag "extrace_killed: extrace exit status $? (SIGKILL: 137)"
	s2=$(stamps)
	load
	s3=$(stamps)
	diag "extrace_killed: $((s3 - s2)) ktime_stamp_ns() calls during $((3 * LOAD)) events after extrace was killed"
	stamped_none "$s2" "$s3" ||
		fail "$((s3 - s2)) ktime_stamp_ns() calls with no one listening"
fi
finish 6

# --- a socket that listens outside the group ----------------------------------
begin unbound_listener
if ! [ -e "$TRACING/events/kprobes/cn_proc_stamp" ]; then
	fail "no kprobe event on ktime_stamp_ns()"
else
	cn_proc_request -w listen >"$k/request" 2>&1 &
	rpid=$!
	if wait_for "cn_proc_request to listen" log_has "$k/request" '^ready$'; then
		s4=$(stamps)
		load
		s5=$(stamps)
		diag "unbound_listener: $((s5 - s4)) ktime_stamp_ns() calls during $((3 * LOAD)) events with a socket outside the group listening"
		stamped_none "$s4" "$s5" ||
			fail "$((s5 - s4)) ktime_stamp_ns() calls with no socket in the group"
	else
		fail "cn_proc_request did not listen: $(cat "$k/request")"
	fi
	kill -TERM "$rpid" 2>/dev/null
	{ wait "$rpid"; } 2>/dev/null
	echo 0 >"$TRACING/events/kprobes/cn_proc_stamp/enable"
	echo '-:cn_proc_stamp' >>"$TRACING/kprobe_events"
fi
finish 7

# --- the per-socket state of sockets outside the group ------------------------
SOCKETS=200
begin proc_input_freed

# freed TRACE: "ALLOCATED FREED", the proc_input allocations of
# cn_proc_mcast_ctl() in TRACE (kmem events) and how many of them were freed.
freed() {
	awk '{ site = ptr = ""
	       for (i = 1; i <= NF; i++) {
		       if ($i ~ /^call_site=/) site = substr($i, 11)
		       if ($i ~ /^ptr=/) ptr = substr($i, 5)
	       } }
	     $0 ~ / kmalloc: / && site ~ /^cn_proc_mcast_ctl\+/ { got[ptr] = 1; n++ }
	     $0 ~ / kfree: / && (ptr in got) { delete got[ptr]; f++ }
	     END { print n + 0, f + 0 }' "$1"
}

if ! echo nohash-ptr >"$TRACING/trace_options" ||
	! echo 4096 >"$TRACING/buffer_size_kb" ||
	! echo 1 >"$TRACING/events/kmem/kmalloc/enable" ||
	! echo 1 >"$TRACING/events/kmem/kfree/enable"; then
	fail "no kmem trace events"
else
	: >"$TRACING/trace"
	cn_proc_request -n $SOCKETS listen 2>"$k/sockets" ||
		fail "cn_proc_request: $(cat "$k/sockets")"
	echo 0 >"$TRACING/events/kmem/kmalloc/enable"
	echo 0 >"$TRACING/events/kmem/kfree/enable"
	freed "$TRACING/trace" >"$k/freed"
	read -r got gone <"$k/freed"
	diag "proc_input_freed: $SOCKETS sockets outside the group sent PROC_CN_MCAST_LISTEN and closed: $got proc_input allocated, $gone freed"
	if grep -q ' cn_release$' /proc/kallsyms; then
		all_freed "$SOCKETS" "$got" "$gone" ||
			fail "$got of $SOCKETS proc_input allocated, $gone freed"
	else
		# No per-socket state (before v6.6): nothing to free.
		diag "proc_input_freed: no cn_release in /proc/kallsyms: no per-socket state"
		all_freed 0 "$got" "$gone" || fail "$got proc_input allocated without cn_release"
	fi
fi
finish 8

end_ms=$(now_ms)
diag "cn_proc-clients: $(((end_ms - start_ms) / 1000)).$(((end_ms - start_ms) % 1000 / 100)) s"
exit $failed

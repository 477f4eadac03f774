#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The harness's own tests, run by make unit-tests (bats, from Debian): bad
# input is refused before anything is fetched or built, a boot passes only
# on what its row asks, the cache is trusted only when checked, the tags of
# a patch make one trailer block. Seconds, no kernel: make, qemu, apt-get
# and dpkg-deb are stubs on PATH that fail loudly if anything reaches them.

setup() {
	TOP=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
	S=$TOP/scripts
	T=$BATS_TEST_TMPDIR
	export OUT=$T/out XDG_CACHE_HOME=$T/cache
	unset KSRC KERNEL CONFIGS SELFTEST_ARGS BENCH_PAIRS BENCH_CANDIDATE BOOT_ARCH
	mkdir -p "$T/bin"
	for c in make qemu-system-x86_64 qemu-system-aarch64 apt-get dpkg-deb; do
		printf '#!/bin/sh\necho "stub: %s called" >&2\nexit 99\n' "$c" >"$T/bin/$c"
		chmod +x "$T/bin/$c"
	done
	export PATH=$T/bin:$PATH
	# A kernel tree of Linux 6.1, as far as the options are concerned.
	mkdir -p "$T/linux-6.1/kernel"
	printf 'VERSION = 6\nPATCHLEVEL = 1\n' >"$T/linux-6.1/Makefile"
}

# refused WORD CMD...: CMD exits non-zero with a line naming WORD, never
# says "passed", and reaches no stub.
refused() {
	local word=$1
	shift
	run "$@"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ $output == *"$word"* ]]
	[[ $output != *passed* ]]
	[[ $output != *"stub:"* ]]
}

# verdict EXPECT [PYTHON-EDIT [LOG]]: results.py's verdict on tests/logs/LOG
# (patched.log), its lines edited by the Python expression (of "lines").
verdict() {
	python3 - "$TOP" "$1" "${2:-lines}" "${3:-patched.log}" <<'EOF'
import sys
sys.path.insert(0, sys.argv[1] + '/scripts')
import results
lines = open(sys.argv[1] + '/tests/logs/' + sys.argv[4], errors='replace').readlines()
print('; '.join(results.verdict(results.parse(eval(sys.argv[3])), sys.argv[2])))
EOF
}

@test "boot-test: a KSRC that does not exist is refused" {
	KSRC=/no/such/tree refused KSRC=/no/such/tree bash "$S/boot-test.sh"
}

@test "boot-test: a KSRC that is no kernel tree is refused" {
	KSRC=$T refused "KSRC=$T" bash "$S/boot-test.sh"
}

@test "static checks: a bad KSRC is refused" {
	KSRC=/no/such/tree refused KSRC=/no/such/tree bash "$S/check-series.sh"
}

@test "bench: a bad KSRC is refused" {
	KSRC=/no/such/tree refused KSRC=/no/such/tree bash "$S/bench.sh"
}

@test "unit-tests: a bad KSRC is refused" {
	KSRC=/no/such/tree refused KSRC=/no/such/tree bash "$S/unit-tests.sh"
}

@test "make check: a bad KSRC is refused before anything is fetched" {
	refused KSRC=/no/such/tree /usr/bin/make -s -C "$TOP" check KSRC=/no/such/tree
}

@test "a line with no series is refused" {
	KERNEL=5.10 refused KERNEL=5.10 bash "$S/boot-test.sh"
	KERNEL=5.10 refused KERNEL=5.10 bash "$S/check-series.sh"
}

@test "KSRC of one line and KERNEL of another contradict" {
	KSRC=$T/linux-6.1 KERNEL=7.3 refused KERNEL=7.3 bash "$S/boot-test.sh"
	KSRC=$T/linux-6.1 KERNEL=all refused KERNEL=all bash "$S/check-series.sh"
}

@test "bench measures one line on x86_64: KERNEL=all, CONFIGS and ARCH are refused" {
	KERNEL=all refused KERNEL=all bash "$S/bench.sh"
	CONFIGS=smp2 refused CONFIGS=smp2 bash "$S/bench.sh"
	BOOT_ARCH=arm64 refused "ARCH=arm64: make bench boots x86_64" bash "$S/bench.sh"
}

@test "CONFIGS that selects no run of a chosen line is refused" {
	KERNEL=6.1 CONFIGS=rt refused 'CONFIGS="rt" selects no run of Linux 6.1' bash "$S/boot-test.sh"
	KERNEL=all CONFIGS=rt refused 'selects no run of Linux 6.12' bash "$S/boot-test.sh"
	CONFIGS="smp2 smpp2" refused "no run 'smpp2'" bash "$S/boot-test.sh"
}

@test "good options pass the check of the options, and build nothing" {
	KERNEL=all CONFIGS="smp2 jiffies" run bash "$S/boot-test.sh" --check-options
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output != *"stub:"* ]]
	KERNEL=7.3 BOOT_ARCH=arm64 CONFIGS=arm64-llsc run bash "$S/boot-test.sh" --check-options
	[ "$status" -eq 0 ]
}

@test "ARCH: an architecture the boot test does not boot is refused before any build" {
	BOOT_ARCH=mips refused "ARCH=mips: not an architecture the boot test boots: arm64 x86_64" bash "$S/boot-test.sh"
	BOOT_ARCH=i386 refused "ARCH=i386" bash "$S/boot-test.sh"
	refused ARCH=mips /usr/bin/make -s -C "$TOP" boot-test ARCH=mips
	refused ARCH=mips /usr/bin/make -s -C "$TOP" check KERNEL=7.3 ARCH=mips
	[ ! -e "$OUT/logs" ]
}

@test "ARCH that leaves a chosen line no run is refused, as CONFIGS is" {
	KERNEL=6.1 BOOT_ARCH=arm64 refused 'ARCH=arm64 CONFIGS="" selects no run of Linux 6.1' bash "$S/boot-test.sh"
	KERNEL=7.3 BOOT_ARCH=arm64 CONFIGS=smp2 refused 'ARCH=arm64 CONFIGS="smp2" selects no run' bash "$S/boot-test.sh"
}

@test "ARCH reaches the scripts as BOOT_ARCH, and no kernel make" {
	run /usr/bin/make -s -C "$TOP" -n boot-test ARCH=arm64
	[[ $output == *scripts/boot-test.sh* ]]
	printf 'env:\n\t@env | grep -E "ARCH=" | sort\n' >"$T/env.mk"
	run /usr/bin/make -s -C "$TOP" -f Makefile -f "$T/env.mk" ARCH=arm64 env
	echo "$output"
	[ "$output" = BOOT_ARCH=arm64 ]
	# An ARCH in the environment is kbuild's (a kernel developer's shell).
	ARCH=arm run /usr/bin/make -s -C "$TOP" -f Makefile -f "$T/env.mk" env
	[ "$output" = BOOT_ARCH= ]
	# Nor an exported CROSS_COMPILE, once set to the arch's: kmake passes it.
	CROSS_COMPILE=x- BOOT_ARCH=arm64 run bash -c ". '$S/lib.sh' && env | grep '^CROSS_COMPILE='"
	[ "$status" -eq 1 ]
}

@test "ARCH: the static checks refuse it; make check's static checks do not see it" {
	BOOT_ARCH=arm64 refused "ARCH=arm64: the static checks are every configuration" bash "$S/check-series.sh"
	run /usr/bin/make -s -C "$TOP" -n check ARCH=arm64
	[[ $output == *"BOOT_ARCH= scripts/check-series.sh"* ]]
}

@test "a row naming a cpu model boots in software emulation: KVM has the host's cpu only" {
	printf '#!/bin/sh\necho "$*" >"%s/args"\n' "$T" >"$T/bin/qemu-system-aarch64"
	BOOT_ARCH=arm64 ACCEL="kvm -cpu host" INITRD=/dev/null run bash "$S/boot.sh" /dev/null "$T/log" 2:cortex-a57
	cat "$T/args"
	grep -q -- '-accel tcg,thread=multi .*-cpu cortex-a57 -smp 2 ' "$T/args"
}

@test "SELFTEST_ARGS that cannot reach the selftest whole are refused" {
	SELFTEST_ARGS='-n "5' refused SELFTEST_ARGS bash "$S/boot-test.sh"
}

@test "SELFTEST_ARGS the selftest rejects fail the boot, whatever the row expects" {
	local usage="[l for l in lines if not (172 <= lines.index(l) < 199)]"
	for expect in pass 'fail:load_order?,load_unique?'; do
		run verdict "$expect" "$usage"
		echo "$output"
		[[ $output == *"cn_proc-selftest reported 0 results, planned none"* ]]
	done
}

# runs_with ROW: a copy of the repo whose configs/runs has ROW as run "new"
# of 7.3; then the boot test of that run.
runs_with() {
	mkdir -p "$T/repo"
	cp -r "$TOP/scripts" "$TOP/configs" "$TOP/tests" "$TOP/patches" "$T/repo/"
	echo "7.3 new $1" >>"$T/repo/configs/runs"
	KERNEL=7.3 CONFIGS=new refused "$2" bash "$T/repo/scripts/boot-test.sh"
}

@test "configs/runs: a run mode tests/init does not know is an error" {
	runs_with "default patched 2 cnproc_run=kunti pass" "cnproc_run=kunti"
}

@test "configs/runs: an unknown init parameter, listener or client flag is an error" {
	runs_with "default patched 2 cnproc_rnu=kunit pass" "cnproc_rnu"
	runs_with "default patched 2 cnproc_listener=33 pass" "cnproc_listener=33"
	runs_with "default patched 2 cnproc_clients=yes pass" "cnproc_clients=yes"
}

@test "configs/runs: an unknown flavour, mutant, cpu count or expectation is an error" {
	runs_with "defualt patched 2 - pass" "no flavour defualt"
	runs_with "default pathced 2 - pass" "pathced"
	runs_with "default patched two - pass" "cpus 'two'"
	runs_with "default patched 2 - passes" "expect 'passes'"
	runs_with "arm64:default patched 2: cnproc_atomics=lse pass" "cpus '2:'"
}

@test "configs/runs: an architecture that does not boot is an error" {
	runs_with "mips:default patched 2 - pass" "no architecture mips that boots"
	runs_with "i386:default patched 2 - pass" "no architecture i386 that boots"
}

@test "configs/runs: an arm64 row without cnproc_atomics is an error, an x86_64 row with it too" {
	runs_with "arm64:default patched 2 - pass" "cnproc_atomics=: arm64 rows name lse llsc"
	runs_with "arm64:default patched 2 clocksource=jiffies pass" "cnproc_atomics=: arm64 rows name lse llsc"
	runs_with "default patched 2 cnproc_atomics=lse pass" "cnproc_atomics=lse: x86_64 rows name none"
	runs_with "arm64:default patched 2 cnproc_atomics=cas pass" "cnproc_atomics=cas"
}

@test "a boot whose atomics the log contradicts fails, whatever the row expects" {
	for log in lse llsc; do
		run verdict pass lines "arm64-$log.log"
		[ -z "$output" ]
	done
	run verdict pass "[l.replace('cnproc_atomics=lse', 'cnproc_atomics=llsc') for l in lines]" arm64-lse.log
	echo "$output"
	[ "$output" = "atomics: lse, cnproc_atomics=llsc" ]
	run verdict 'fail:load_order?' "[l.replace('cnproc_atomics=llsc', 'cnproc_atomics=lse') for l in lines]" arm64-llsc.log
	[ "$output" = "atomics: llsc, cnproc_atomics=lse" ]
	run verdict pass "[l.replace(' cnproc_atomics=llsc', '') for l in lines]" arm64-llsc.log
	[ "$output" = "atomics: llsc, cnproc_atomics=(none)" ]
	# The alternatives make the choice, whatever else the boot printed.
	run verdict pass "[l for l in lines if 'All CPU(s) started' not in l]" arm64-llsc.log
	[ -z "$output" ]
	run verdict pass "[l.replace('cnproc_atomics=llsc', 'cnproc_atomics=lse') for l in lines if 'system-wide alternatives' not in l]" arm64-llsc.log
	[ "$output" = "atomics: none detected, cnproc_atomics=lse" ]
	run verdict pass "[l.replace('cnproc_clients=1', 'cnproc_clients=1 cnproc_atomics=lse') for l in lines]"
	[ "$output" = "atomics: none detected, cnproc_atomics=lse" ]
}

@test "make results publishes this run's tables, not an older run's" {
	mkdir -p "$T/top" "$OUT/7.3/results" "$OUT/arm64/6.1/results"
	cp -r "$TOP/scripts" "$TOP/configs" "$T/top/"
	echo "older run" >"$OUT/arm64/6.1/results/table.md"
	touch -d '1 hour ago' "$OUT/arm64/6.1/results/table.md"
	echo 1234567 >"$OUT/commit"
	touch -d '1 minute ago' "$OUT/commit"
	echo "this run" >"$OUT/7.3/results/table.md"
	run bash "$T/top/scripts/publish.sh"
	cat "$T/top/RESULTS"
	grep -q "this run" "$T/top/RESULTS"
	! grep -q "older run" "$T/top/RESULTS"
}

@test "tests/init refuses what it does not know, in the guest and on the host" {
	# Never run an init without --check here: it would take the machine over.
	grep -q -- '--check' "$TOP/tests/init" || { echo "tests/init has no --check"; false; }
	env -i PATH="$PATH" cnproc_run=kunit cnproc_clients=1 sh "$TOP/tests/init" --check
	env -i PATH="$PATH" cnproc_atomics=llsc sh "$TOP/tests/init" --check
	run env -i PATH="$PATH" cnproc_run=kunti sh "$TOP/tests/init" --check
	[ "$status" -ne 0 ]
	[[ $output == *cnproc_run=kunti* ]]
	run env -i PATH="$PATH" cnproc_atomics=cas sh "$TOP/tests/init" --check
	[ "$status" -ne 0 ]
	[[ $output == *"cnproc_atomics=cas: not lse or llsc"* ]]
}

@test "a boot whose init ran an unknown run mode fails, on its KUnit results alone too" {
	local kunti="[l.replace('run=selftest', 'run=kunti') for l in lines if 'cn_proc-selftest' not in l]"
	run verdict pass "$kunti"
	echo "$output"
	[[ $output == *"unknown run kunti"* ]]
	run verdict pass "[l for l in lines if not l.startswith('cn_proc-init:')] + ['cn_proc-init: error: cnproc_run=x']"
	[[ $output == *"init: cnproc_run=x"* ]]
}

@test "an expectation naming a check the boot does not have is an error, with or without ?" {
	run verdict 'fail:load_ordr?'
	echo "$output"
	[[ $output == *"load_ordr, expected, is no check of this boot"* ]]
	run verdict 'fail:kunit:no_such_test'
	[[ $output == *"kunit:no_such_test, expected, is no check"* ]]
	run verdict pass
	[ -z "$output" ]
}

@test "a boot that did not print the selftest's plan, or a planned result, fails" {
	run verdict pass "[l for l in lines if l.strip() != '1..17']"
	[[ $output == *"reported 17 results, planned none"* ]]
	run verdict 'fail:load_order?' "[l for l in lines if 'load_unique' not in l]"
	[[ $output == *"reported 16 results, planned 17"* ]]
}

# image BODY: bash with kernels.sh sourced, line 7.3 set up, a cached image
# for default/base whose id is $id; then BODY.
image() {
	run bash -c '. "$1/kernels.sh"
		line_env 7.3
		mkdir -p "$LOUT/build/default"
		echo tree >"$LOUT/tree.id"
		echo CONFIG_X=y >"$LOUT/build/default/.config"
		id=$(image_id default base) e=$CACHE/kernels/$(image_id default base)
		mkdir -p "$e"
		echo image >"$e/bzImage"
		echo "$id" >"$e/id"
		(cd "$e" && sha256sum bzImage id >SHA256SUMS)
		d=$(image_dir default/base)
		'"$1" _ "$S"
	echo "$output"
}

@test "cache: a failed copy out of the cache never records the image as present" {
	image 'cp() { return 1; }
		! image_ok default base || echo PRESENT
		[ ! -f "$d/id" ] || echo RECORDED'
	[ "$status" -eq 0 ]
	[[ $output != *PRESENT* ]]
	[[ $output != *RECORDED* ]]
}

@test "cache: an entry that is not what its checksums say is not used, and is replaced" {
	image 'echo corrupt >"$e/bzImage"
		! image_ok default base || echo PRESENT
		mkdir -p "$OUT/good" && echo image >"$OUT/good/bzImage" && echo "$id" >"$OUT/good/id"
		cache_put "$OUT/good" kernels "$id"
		image_ok default base && cat "$d/bzImage"'
	[ "$status" -eq 0 ]
	[[ $output != *PRESENT* ]]
	[[ $output == *image ]]
}

@test "cache: an entry without checksums is not trusted" {
	image 'rm "$e/SHA256SUMS"
		! image_ok default base || echo PRESENT'
	[[ $output != *PRESENT* ]]
}

@test "cache: interrupted and concurrent puts leave one whole entry" {
	run bash -c '. "$1/lib.sh"
		mkdir -p "$CACHE/kernels/k.tmp.left" "$OUT/src"
		head -c 1000000 /dev/urandom >"$OUT/src/bzImage"
		for i in 1 2 3 4 5 6; do cache_put "$OUT/src" kernels k & done
		wait
		(cd "$CACHE/kernels/k" && sha256sum --quiet --strict -c SHA256SUMS)
		cache_get kernels k "$OUT/got" && cmp "$OUT/src/bzImage" "$OUT/got/bzImage"
		ls "$CACHE/kernels"' _ "$S"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *k*k.tmp.left* ]]
	[ "$(wc -l <<<"$output")" -eq 2 ]
}

# patch_with TAGS: a patch whose commit message ends with TAGS.
patch_with() {
	printf 'From 0 Mon Sep 17 00:00:00 2001\nFrom: A <a@example.org>\nSubject: [PATCH] x: Do y\n that wraps\n\nWhy.\n%b\n---\n x.c | 1 +\n' \
		"$1" >"$T/p.patch"
	run bash -c '. "$1/lib.sh"; trailers_ok "$2"' _ "$S" "$T/p.patch"
	echo "$output"
}

@test "tags: one trailer block passes" {
	patch_with '\nFixes: 0123456789ab ("x: y")\nCc: stable@vger.kernel.org # 6.1\nSigned-off-by: A <a@example.org>'
	[ "$status" -eq 0 ]
}

@test "tags: no blank line before Signed-off-by fails (today's patch 1)" {
	patch_with 'Signed-off-by: A <a@example.org>'
	[ "$status" -ne 0 ]
	[[ $output == *"'Signed-off-by: A <a@example.org>' is outside the trailer block"* ]]
}

@test "tags: a blank line between Cc: and Signed-off-by fails (today's patch 2)" {
	patch_with '\nFixes: 0123456789ab ("x: y")\nCc: stable@vger.kernel.org\n\nSigned-off-by: A <a@example.org>'
	[ "$status" -ne 0 ]
	[[ $output == *"'Cc: stable@vger.kernel.org' is outside"* ]]
	[[ $output == *"'Fixes: 0123456789ab"* ]]
}

# tags MODE: the static checks of 7.3 on a copy of the repo whose patches'
# tags are crafted: "good", one trailer block; "bad", no blank line before
# them (as patch 1 was). The tags are checked first: they need no tree.
tags() {
	mkdir -p "$T/repo"
	cp -r "$TOP/scripts" "$TOP/configs" "$TOP/tests" "$TOP/patches" "$T/repo/"
	for p in "$T"/repo/patches/0*.patch; do
		python3 - "$1" "$p" <<'EOF'
import re, sys
mode, path = sys.argv[1:]
head, sep, rest = open(path).read().partition('\n---\n')
tag = re.compile(r'^(Fixes|Cc|Link|Closes|[A-Z][A-Za-z-]*-by): ')
lines = head.split('\n')
body = [l for l in lines if not tag.match(l)]
while body[-1] == '':
    body.pop()
body += ([''] if mode == 'good' else []) + [l for l in lines if tag.match(l)]
open(path, 'w').write('\n'.join(body) + sep + rest)
EOF
	done
	run bash "$T/repo/scripts/check-series.sh" --line 7.3
	echo "$output"
}

@test "static checks: the tags of a series must be one trailer block" {
	tags bad
	[ "$status" -ne 0 ]
	[[ $output == *"0001-"*"is outside the trailer block"* ]]
	[[ $output == *"error: patches: tags outside the trailer block"* ]]
	tags good
	[[ $output == *"tags: one trailer block in every patch"* ]]
}

@test "sourced libraries are not executable and say they are libraries" {
	for f in lib.sh tree.sh kernels.sh; do
		[ ! -x "$S/$f" ]
		sed -n 2p "$S/$f" | grep -q 'a library, sourced'
	done
}

@test "setup runs once per make check: no stage runs it, make does" {
	run grep -n 'setup\.sh"' "$S"/*.sh
	echo "$output"
	[ -z "$output" ]
	[ "$(/usr/bin/make -n -C "$TOP" check | grep -c 'scripts/setup\.sh')" -eq 1 ]
}

@test "make unit-tests downloads no kernel source" {
	run grep -n 'source\.sh' "$S/unit-tests.sh"
	[ -z "$output" ]
}

@test "every environment variable the scripts read is in the README's option list" {
	# Set by the harness for its own stages, not options.
	local internal=" ACCEL INITRD STAGE QEMU_EXTRA CROSS_COMPILE DEBS_ARCH HOME " v
	for v in $(cat "$S"/*.sh "$TOP/Makefile" | grep -oE '\$\{[A-Z][A-Z0-9_]*:[-?]' | tr -d '${:?-' | sort -u); do
		[[ $internal == *" $v "* ]] && continue
		# make's ARCH, which the Makefile gives the scripts as BOOT_ARCH.
		[ "$v" != BOOT_ARCH ] || v=ARCH
		sed -n '/^Options/,/^Other targets/p' "$TOP/README" | grep -qE "^ +$v=" ||
			{ echo "$v is not in the README's option list"; false; }
	done
}

@test "scripts/ is no longer than it was (1,889 lines)" {
	[ "$(cat "$S"/* | wc -l)" -le 1889 ]
}

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# initramfs.sh LINE: the test initramfs of a line, $OUT/LINE/initramfs.cpio.gz:
# a static busybox, tests/init and its console_drain, the selftest built
# statically 64- and 32-bit from its place in the line's patched tree
# against that tree's uapi headers, make bench's event storm, and the real
# clients (clients.sh).
# shellcheck source=tree.sh
. "$(dirname "$0")/tree.sh"

line_env "$1"
build=$LOUT/build/default
hdrs=$build/usr/include
st=$TREE/tools/testing/selftests/cn_proc
bin=$LOUT/selftest
root=$LOUT/initramfs

tree_patched
kmake "$TREE" "$build" x86_64 headers >"$LOGS/$LINE/headers.log" 2>&1 ||
	die "make headers failed, see $LOGS/$LINE/headers.log"

# The selftest sits in the tree as it would upstream.
rm -rf "$st"
cp -r "$TOP/tools/testing/selftests/cn_proc" "$st"
for bits in 64 32; do
	mkdir -p "$bin/$bits"
	make -C "$st" OUTPUT="$bin/$bits" KHDR_INCLUDES="-isystem $hdrs" \
		LDFLAGS="-m$bits -static" >"$LOGS/$LINE/selftest-$bits.log" 2>&1 ||
		die "selftest -m$bits build failed, see $LOGS/$LINE/selftest-$bits.log"
done
gcc -Wall -O2 -static -isystem "$hdrs" -o "$bin/cn_proc_storm" \
	"$TOP/tests/bench/cn_proc_storm.c" >"$LOGS/$LINE/storm.log" 2>&1 ||
	die "cn_proc_storm build failed, see $LOGS/$LINE/storm.log"
gcc -Wall -O2 -static -o "$bin/console_drain" "$TOP/tests/console_drain.c" ||
	die "console_drain build failed"

"$S/clients.sh" "$OUT/clients" >"$LOGS/clients.log" 2>&1 ||
	die "could not stage the real clients, see $LOGS/clients.log"

busybox=$(command -v busybox) || die "no busybox: apt-get install busybox-static"
if ldd "$busybox" >/dev/null 2>&1; then
	die "$busybox is not static: apt-get install busybox-static"
fi

rm -rf "$root"
mkdir -p "$root/bin"
cp -a "$OUT/clients/." "$root/"
cp "$busybox" "$root/bin/busybox"
ln -s busybox "$root/bin/sh"
cp "$bin/64/cn_proc_test" "$root/bin/cn_proc_test"
cp "$bin/32/cn_proc_test" "$root/bin/cn_proc_test32"
cp "$bin/cn_proc_storm" "$bin/console_drain" "$root/bin/"
cp "$TOP/tests/init" "$root/init"
chmod +x "$root/init"
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0 | gzip -6n) \
	>"$LOUT/initramfs.cpio.gz"
note "initramfs: $(du -h "$LOUT/initramfs.cpio.gz" | cut -f1)"

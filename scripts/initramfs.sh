#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# initramfs.sh LINE: the test initramfs of a line, $OUT/LINE/initramfs.cpio.gz,
# as the guests' configs/arch/ARCH.config says: Debian's busybox-static,
# tests/init and its console_drain, the selftest for each listener from its
# place in the line's patched tree against that tree's uapi headers, make
# bench's event storm (all static), and the real clients (clients.sh).
# shellcheck source=tree.sh
. "$(dirname "$0")/tree.sh"

line_env "$1"
build=$LOUT/build/default
hdrs=$build/usr/include
st=$TREE/tools/testing/selftests/cn_proc
bin=$LOUT/selftest
root=$LOUT/initramfs

tree_patched
kmake "$TREE" "$build" "$GUEST_ARCH" headers >"$LOGS/$LINE/headers.log" 2>&1 ||
	die "make headers failed, see $LOGS/$LINE/headers.log"

# The selftest sits in the tree as it would upstream.
rm -rf "$st" "$root"
cp -r "$TOP/tools/testing/selftests/cn_proc" "$st"
mkdir -p "$root/bin"
for l in $LISTENERS; do
	bits=${l%%:*}
	mkdir -p "$bin/$bits"
	make -C "$st" OUTPUT="$bin/$bits" KHDR_INCLUDES="-isystem $hdrs" CROSS_COMPILE="$CROSS_COMPILE" \
		LDFLAGS="${l#*:} -static" >"$LOGS/$LINE/selftest-$bits.log" 2>&1 ||
		die "selftest $bits-bit build failed, see $LOGS/$LINE/selftest-$bits.log"
	cp "$bin/$bits/cn_proc_test" "$root/bin/cn_proc_test${bits#64}"
done
"${CROSS_COMPILE}gcc" -Wall -O2 -static -isystem "$hdrs" -o "$bin/cn_proc_storm" \
	"$TOP/tests/bench/cn_proc_storm.c" >"$LOGS/$LINE/storm.log" 2>&1 ||
	die "cn_proc_storm build failed, see $LOGS/$LINE/storm.log"
"${CROSS_COMPILE}gcc" -Wall -O2 -static -o "$bin/console_drain" "$TOP/tests/console_drain.c" ||
	die "console_drain build failed"

if [ "$CLIENTS" = 1 ]; then
	"$S/clients.sh" "$OUT/clients" >"$LOGS/clients.log" 2>&1 ||
		die "could not stage the real clients, see $LOGS/clients.log"
	cp -a "$OUT/clients/." "$root/"
fi

# Unpacked, not installed (bookworm, as the clients).
deb=$(DEBS_ARCH=$DEBIAN_ARCH "$S/debs.sh" bookworm busybox-static) ||
	die "could not fetch Debian's busybox-static for $DEBIAN_ARCH"
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$root" ./bin/busybox
ln -s busybox "$root/bin/sh"
cp "$bin/cn_proc_storm" "$bin/console_drain" "$root/bin/"
cp "$TOP/tests/init" "$root/init"
chmod +x "$root/init"
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0 | gzip -6n) \
	>"$LOUT/initramfs.cpio.gz"
note "initramfs: $(du -h "$LOUT/initramfs.cpio.gz" | cut -f1)"

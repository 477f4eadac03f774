#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# initramfs.sh: the selftest built statically (64-bit and -m32) from its
# place in the tree, against the patched tree's uapi headers, the bench's
# event storm, and a busybox initramfs whose init runs one of them and
# powers off: $OUT/initramfs.cpio.gz.
. "$(dirname "$0")/tree.sh"

build=$OUT/build/default
hdrs=$build/usr/include
st=$TREE/tools/testing/selftests/cn_proc
root=$OUT/initramfs

tree_patched
kmake "$build" headers >"$LOGS/headers.log" 2>&1 || die "make headers failed, see $LOGS/headers.log"

# The selftest sits in the tree as it would upstream.
rm -rf "$st"
cp -r "$TOP/tools/testing/selftests/cn_proc" "$st"
for bits in 64 32; do
	mkdir -p "$OUT/selftest/$bits"
	make -C "$st" OUTPUT="$OUT/selftest/$bits" KHDR_INCLUDES="-isystem $hdrs" \
		LDFLAGS="-m$bits -static" \
		>"$LOGS/selftest-$bits.log" 2>&1 ||
		die "selftest -m$bits build failed, see $LOGS/selftest-$bits.log"
done

gcc -Wall -O2 -static -isystem "$hdrs" -o "$OUT/selftest/64/cn_proc_storm" \
	"$TOP/tests/bench/cn_proc_storm.c" >"$LOGS/storm.log" 2>&1 ||
	die "cn_proc_storm build failed, see $LOGS/storm.log"

busybox=$(command -v busybox || true)
[ -n "$busybox" ] && ! ldd "$busybox" >/dev/null 2>&1 ||
	die "a static busybox is needed: apt-get install busybox-static"

rm -rf "$root"
mkdir -p "$root"/{bin,dev,proc,sys,tmp}
cp "$busybox" "$root/bin/busybox"
for app in sh mount cat echo reboot; do ln -s busybox "$root/bin/$app"; done
cp "$OUT/selftest/64/cn_proc_test" "$root/bin/cn_proc_test"
cp "$OUT/selftest/32/cn_proc_test" "$root/bin/cn_proc_test32"
cp "$OUT/selftest/64/cn_proc_storm" "$root/bin/cn_proc_storm"
cp "$TOP/tests/init" "$root/init"
chmod +x "$root/init"
mkdir -p "$OUT"
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0 | gzip -9n) \
	>"$OUT/initramfs.cpio.gz"
note "initramfs: $(du -h "$OUT/initramfs.cpio.gz" | cut -f1)"

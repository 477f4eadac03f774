#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# config.sh FLAVOUR [BUILD_DIR]: tinyconfig plus the repo's fragments for
# ARCH_NAME and FLAVOUR, into BUILD_DIR (default $OUT/build/FLAVOUR). The
# .config is replaced only when it changes, so that a rerun rebuilds
# nothing; every option the fragments ask for must survive olddefconfig.
. "$(dirname "$0")/lib.sh"

flavour=$1
build=${2:-$OUT/build/$flavour}
scratch=$build.config
frags=("$TOP/configs/common.config" "$TOP/configs/arch/$ARCH_NAME.config"
       "$TOP/tools/testing/selftests/cn_proc/config"
       "$TOP/configs/flavours/$flavour.config")

for f in "${frags[@]}"; do
	[ -f "$f" ] || die "no config fragment $f (flavours: $(cd "$TOP/configs/flavours" && ls | sed 's/\.config$//' | xargs))"
done

mkdir -p "$scratch" "$build"
log=$LOGS/config-$(basename "$build").log
{
	kmake "$scratch" tinyconfig &&
		"$TREE/scripts/kconfig/merge_config.sh" -m -O "$scratch" \
			"$scratch/.config" "${frags[@]}" &&
		kmake "$scratch" olddefconfig
} >"$log" 2>&1 || die "config $flavour failed, see $log"

# Every option must be as the last fragment that names it asks.
missing=0
while IFS='|' read -r want from; do
	case "$want" in
	*=n) opt=${want%=n}; grep -q "^$opt=" "$scratch/.config" || continue ;;
	*) grep -qxF "$want" "$scratch/.config" && continue ;;
	esac
	echo "error: $flavour: '$want' (from ${from#"$TOP"/}) did not survive olddefconfig" >&2
	missing=1
done < <(for f in "${frags[@]}"; do
		sed -n -e 's/^\(CONFIG_[A-Za-z0-9_]*=.*\)$/\1/p' \
		       -e 's/^# \(CONFIG_[A-Za-z0-9_]*\) is not set$/\1=n/p' "$f" |
			sed "s|\$|\|$f|"
	done | awk -F'[=|]' '{ last[$1] = $0; order[NR] = $1 }
		END { for (i = 1; i <= NR; i++) if (!seen[order[i]]++) print last[order[i]] }')
[ $missing -eq 0 ] || exit 1

if ! cmp -s "$scratch/.config" "$build/.config"; then
	cp "$scratch/.config" "$build/.config"
	note "$flavour: new .config"
fi

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# End-to-end test of superpass.ko: build the module and a static workload,
# pack them with busybox into an initramfs, boot Debian's kernel in QEMU,
# and judge the "SPT" lines the guest prints on its serial console.
#
#   tests/kmod/run-qemu-test.sh [--kernel SERIES|RELEASE] [--arch amd64|arm64]
#                               [--workdir DIR] [--seconds N] [--timeout S]
#                               [--superpass BIN] [--scenarios "A B"]
#                               [--trace-long MS] [--record-base DIR]
#
# --scenarios: run only those (inode, mmap|populate, fpos, futex, go; a debugging aid:
# the checks of the others then fail). --trace-long MS: the module runs
# record ftrace (sched_switch, sched_waking, lock contention) in the guest
# and the trace of the first critical operation over MS ms goes to
# WORKDIR/trace-SCENARIO.txt (tracing slows the guest: figures of such a
# run are not comparable).
#
# --record-base DIR: for `superpass replay` (docs/replay.md). Each
# scenario's base run (no module) is followed by a second, traced one: the
# whole run under `superpass record` in the guest (mono clock, the
# scheduler, futex and lock-contention events; streamed to a file, so no
# ring buffer has to hold it). The traces leave the guest as a tar on a
# virtio disk (WORKDIR/record.img; virtio_blk and its dependencies are
# copied from /lib/modules/RELEASE when they are modules), not through the
# console. DIR gets base-SCENARIO.trace, figures.tsv (per scenario and run
# - base, traced, module - ops, P50, P99.9 and max of the critical thread's
# operations in us) and the console log. amd64 only. The boot takes a few
# s longer per scenario: give --timeout 420 or more.
#
# --superpass: the `superpass` command the guest uses (`superpass kmod`;
# ctest passes the one it built); default build/tools/superpass. It is
# dynamically linked, so its libraries and loader go into the initramfs at
# the paths ldd gives.
#
# --kernel 6.1 / 6.12: the newest /boot/vmlinuz-SERIES.*-amd64 with matching
# headers; --kernel 6.12.95+deb12-amd64: that release. Without it, the
# newest image that has headers. The module is built against that kernel's
# own headers (/usr/src/linux-headers-RELEASE), never kmod/Makefile's default.
#
# --arch arm64: the module and the workloads cross-built (aarch64-linux-gnu-),
# Debian's arm64 kernel booted in qemu-system-aarch64 (-M virt -cpu
# cortex-a57, TCG), with the same checks. tests/setup-debian.sh unpacks its
# image and busybox-static:arm64 into SP_ARM64_GUEST (default
# /usr/local/lib/superpass-arm64) and its headers into /usr/src; RELEASE
# then ends in -arm64. --superpass must then be an arm64 build (default
# build-arm64/tools/superpass); its libraries are listed by the arm64
# loader (ld-linux-aarch64.so.1 --list, through qemu-user), not ldd.
#
# Exit 0: every check passed. 77: a prerequisite is missing (ctest skip).
# The latency and throughput figures are printed, never asserted.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
WORK=${TMPDIR:-/tmp}/superpass-qemu
SECS=6
TIMEOUT=300
KSEL=""
ARCH=amd64
SPBIN=""
SCEN_ONLY=""
TRACE_MS=""
RECORD_DIR=""

while [ $# -gt 0 ]; do
	case "$1" in
	--workdir) WORK=$2; shift 2 ;;
	--seconds) SECS=$2; shift 2 ;;
	--timeout) TIMEOUT=$2; shift 2 ;;
	--kernel) KSEL=$2; shift 2 ;;
	--superpass) SPBIN=$2; shift 2 ;;
	--arch) ARCH=$2; shift 2 ;;
	--scenarios) SCEN_ONLY=$2; shift 2 ;;
	--trace-long) TRACE_MS=$2; shift 2 ;;
	--record-base) RECORD_DIR=$2; shift 2 ;;
	*) echo "usage: $0 [--kernel SERIES|RELEASE] [--arch amd64|arm64] [--workdir DIR] [--seconds N] [--timeout S] [--superpass BIN] [--scenarios \"A B\"] [--trace-long MS] [--record-base DIR]" >&2; exit 2 ;;
	esac
done

# SUPERPASS_SKIP_CODE=1 (tests/run-all.sh sets it) turns a missing
# prerequisite into a failure: CI installs them all.
skip() { echo "SKIP: $*"; exit "${SUPERPASS_SKIP_CODE:-77}"; }
die() { echo "FAIL: $*"; exit 1; }

# What differs between the two architectures, all here: the guest's boot
# directory, console, QEMU machine, the compiler, static busybox, and how
# the superpass command's libraries are listed.
case "$ARCH" in
amd64)
	BOOT=/boot
	QEMU=(qemu-system-x86_64)
	CONSOLE=ttyS0
	CC=gcc
	KMAKE=()
	BUSYBOX=/bin/busybox
	LIBC_A=/usr/lib/x86_64-linux-gnu
	LDLIST=(ldd)
	SPBIN=${SPBIN:-$ROOT/build/tools/superpass}
	;;
arm64)
	BOOT=${SP_ARM64_GUEST:-/usr/local/lib/superpass-arm64}
	QEMU=(qemu-system-aarch64 -M virt -cpu cortex-a57)
	CONSOLE=ttyAMA0
	CC=aarch64-linux-gnu-gcc
	KMAKE=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-)
	BUSYBOX=$BOOT/busybox
	LIBC_A=/usr/aarch64-linux-gnu/lib
	LDLIST=(/lib/ld-linux-aarch64.so.1 --list)
	SPBIN=${SPBIN:-$ROOT/build-arm64/tools/superpass}
	;;
*) echo "$0: --arch: amd64 or arm64, not '$ARCH'" >&2; exit 2 ;;
esac

# The guest kernel: the newest Debian image of that architecture (of the
# series asked for) that has matching headers.
case "$KSEL" in
"") pat="$BOOT/vmlinuz-*-$ARCH" ;;
*-$ARCH) pat="$BOOT/vmlinuz-$KSEL" ;;
*) pat="$BOOT/vmlinuz-$KSEL.*-$ARCH" ;;
esac
KVER=""
# Never a PREEMPT_RT image by default (the module refuses those kernels).
for img in $(ls -v $pat 2>/dev/null | { [[ "$KSEL" == *-rt-$ARCH ]] && cat || grep -v -- "-rt-$ARCH\$"; }); do
	v=${img#$BOOT/vmlinuz-}
	if [ -d "/usr/src/linux-headers-$v" ] || [ -d "/lib/modules/$v/build" ]; then KVER=$v; fi
done
[ -n "$KVER" ] || skip "no $pat with headers (tests/setup-debian.sh installs 6.1 and 6.12 for amd64, 6.1 for arm64)"
[ -r "$BOOT/vmlinuz-$KVER" ] || skip "$BOOT/vmlinuz-$KVER not readable"
KDIR=/usr/src/linux-headers-$KVER
[ -d "$KDIR" ] || KDIR=/lib/modules/$KVER/build

# The mmap_lock scenario. Up to 6.3 page faults take mmap_lock for reading,
# so "mmap" (nice-19 threads faulting pages in and dropping them against a
# critical mmap()/munmap() writer) inverts. From 6.4 (CONFIG_PER_VMA_LOCK,
# on in Debian's 6.12) an anonymous fault takes only its VMA's lock and that
# scenario shows no inversion. "populate" keeps the same writer against
# readers that still take mmap_lock on 6.12: madvise(MADV_POPULATE_WRITE)
# prefaulting (QEMU, databases) and MADV_DONTNEED, which page through the
# range under mmap_read_lock with a cond_resched() per page, the preemption
# point a voluntary-preemption kernel (Debian's, both versions) needs for a
# holder to lose its CPU inside the lock. /proc/PID/maps readers take
# mmap_read_lock too but have no preemption point inside it, so they make
# no inversion.
kmm=$(echo "$KVER" | sed -n 's/^\([0-9]*\)\.\([0-9]*\).*/\1 \2/p')
if [ -n "$kmm" ] && [ "$(echo "$kmm" | awk '{ print ($1 > 6 || ($1 == 6 && $2 >= 4)) }')" = 1 ]; then
	MMSC=populate
else
	MMSC=mmap
fi
# go (Go's runtime on its own futex words) only when --scenarios names it:
# its waits are not helped yet (docs/kmod.md), and under TCG it doubles a
# boot; tests/kmod/futex-figures.sh runs it.
SCENARIOS=${SCEN_ONLY:-inode $MMSC fpos futex}
EXTRA_APPEND=""
[ -n "$SCEN_ONLY" ] && EXTRA_APPEND="$EXTRA_APPEND sp_scen=$(echo $SCEN_ONLY | tr ' ' ,)"
[ -n "$TRACE_MS" ] && EXTRA_APPEND="$EXTRA_APPEND sp_trace=$TRACE_MS"
DRIVE=()
if [ -n "$RECORD_DIR" ]; then
	[ "$ARCH" = amd64 ] || die "--record-base: amd64 only (the arm64 guest's virtio modules are not unpacked)"
	mkdir -p "$RECORD_DIR" || die "--record-base: cannot create $RECORD_DIR"
	RECORD_DIR=$(cd "$RECORD_DIR" && pwd)
	# no_hash_pointers: lock:contention_* print the lock's address with %p,
	# which is "(____ptrval____)" until the guest's RNG is ready (under TCG
	# possibly for the whole boot); the replay keys locks by it.
	EXTRA_APPEND="$EXTRA_APPEND sp_record=1 no_hash_pointers"
fi
command -v "${QEMU[0]}" >/dev/null || skip "${QEMU[0]} missing (tests/setup-debian.sh: qemu-system-x86, qemu-system-arm)"
command -v "$CC" >/dev/null || skip "$CC missing (tests/setup-debian.sh)"
# busybox-static: the plain busybox package is dynamically linked.
[ -x "$BUSYBOX" ] && ! ldd "$BUSYBOX" >/dev/null 2>&1 || skip "static busybox missing at $BUSYBOX (tests/setup-debian.sh)"
command -v cpio >/dev/null || skip "cpio missing (apt-get install cpio)"
[ -e "$LIBC_A/libpthread.a" ] || [ -e "$LIBC_A/libc.a" ] || skip "static libc missing in $LIBC_A (libc6-dev, libc6-dev-arm64-cross)"

[ -x "$SPBIN" ] || die "no superpass command at $SPBIN (build it: cmake --build build --target superpass-cli; or give --superpass BIN)"

rm -rf "$WORK"
mkdir -p "$WORK/root/bin" "$WORK/root/proc" "$WORK/root/sys" "$WORK/root/dev" "$WORK/root/tmp" \
	"$WORK/root/usr/bin" "$WORK/root/etc"

echo "== building superpass.ko for $KVER ($KDIR)"
make -s -C "$ROOT/kmod" "${KMAKE[@]}" KDIR="$KDIR" OUT="$(cd "$WORK" && pwd)/kbuild" >"$WORK/kbuild.log" 2>&1 || { cat "$WORK/kbuild.log"; die "module build"; }
echo "== building sp_probe_cost.ko (the probe-cost loop) for $KVER"
# A measuring module of its own (tools/measure/kmod/sp_probe_cost.c), warnings as errors.
mkdir -p "$WORK/pcbuild"
cp "$ROOT/tools/measure/kmod/sp_probe_cost.c" "$WORK/pcbuild/"
printf 'obj-m := sp_probe_cost.o\nccflags-y := -Werror\n' >"$WORK/pcbuild/Kbuild"
make -s -C "$KDIR" "${KMAKE[@]}" M="$(cd "$WORK/pcbuild" && pwd)" modules >"$WORK/pcbuild.log" 2>&1 ||
	{ cat "$WORK/pcbuild.log"; die "sp_probe_cost.ko build"; }
echo "== building the static workload"
"$CC" -static -O2 -Wall -Wextra -Wno-unused-parameter -Werror -pthread \
	-o "$WORK/root/spw" "$HERE/sp_kmod_workload.c" || die "workload build"
# The go scenario (Go's sync.Mutex: the runtime's raw futex calls), when
# asked for and a Go toolchain is there (Debian's golang-go): static, for
# the guest's architecture; without one the scenario is left out and said so.
GO_SCEN=""
case " $SCEN_ONLY " in *" go "*) want_go=true ;; *) want_go=false ;; esac
if $want_go && command -v go >/dev/null; then
	echo "== building the Go workload ($(go version | awk '{ print $3 }'))"
	gocache=$(go env GOCACHE 2>/dev/null || true)
	[ -n "$gocache" ] && [ "$gocache" != off ] || export GOCACHE=$WORK/gocache
	(cd "$HERE/go" && CGO_ENABLED=0 GOARCH=$ARCH GOFLAGS=-mod=mod go build -o "$WORK/root/spgo" sp_kmod_go.go) ||
		die "Go workload build"
	GO_SCEN=go
elif $want_go; then
	echo "== no go command (golang-go): the go scenario is left out"
fi

"$CC" -static -O2 -Wall -Wextra -Werror -pthread \
	-o "$WORK/root/sp-late" "$HERE/sp_kmod_late.c" || die "sp-late build"
# (go, when asked for, is in SCEN_ONLY already)
# The guest's superpass command and everything ldd says it loads. The
# system's libraries keep their paths; ours (found through the build tree's
# RUNPATH) go to /usr/lib, a directory the loader always searches: the
# build tree may lie under /tmp, which the guest mounts a tmpfs over.
cp "$SPBIN" "$WORK/root/usr/bin/superpass"
for lib in $("${LDLIST[@]}" "$SPBIN" | grep -oE '/[^ ]+'); do
	case $lib in
	/lib/* | /lib64/* | /usr/lib/* | /usr/lib64/*) dest=$lib ;;
	*) dest=/usr/lib/$(basename "$lib") ;;
	esac
	mkdir -p "$WORK/root$(dirname "$dest")"
	cp -L "$lib" "$WORK/root$dest"
done
# The unprivileged user of the privilege checks (busybox su needs it).
printf 'root:x:0:0:root:/:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/sh\n' >"$WORK/root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$WORK/root/etc/group"
cp "$HERE/guest-interface.sh" "$HERE/guest-attempts.sh" "$WORK/root/"
chmod 755 "$WORK/root/guest-attempts.sh"
cp "$BUSYBOX" "$WORK/root/bin/busybox"
ln -s busybox "$WORK/root/bin/sh"
cp "$WORK/kbuild/superpass.ko" "$WORK/pcbuild/sp_probe_cost.ko" "$WORK/root/"
cp "$HERE/guest-init.sh" "$WORK/root/init"
chmod +x "$WORK/root/init"
# The guest tells from the kernel's config which checks mean something
# (lockdep); Debian's kernel has no /proc/config.gz.
[ -r "$BOOT/config-$KVER" ] && cp "$BOOT/config-$KVER" "$WORK/root/kconfig"
# --record-base: the virtio disk's driver, with what it and virtio_pci need
# when they are modules (Debian: virtio_blk always, virtio/virtio_pci on
# 6.1), dependencies first, from modules.dep; decompressed here (6.12's are
# .ko.xz), so that the guest's busybox insmod gets plain .ko files.
if [ -n "$RECORD_DIR" ]; then
	mdir=/lib/modules/$KVER
	mods_order=()
	mod_add() { # path relative to $mdir
		local m=$1 d
		for d in "${mods_order[@]}"; do [ "$d" = "$m" ] && return 0; done
		for d in $(sed -n "s|^$m:||p" "$mdir/modules.dep"); do mod_add "$d"; done
		mods_order+=("$m")
	}
	if ! grep -q "^CONFIG_VIRTIO_BLK=y" "$BOOT/config-$KVER" 2>/dev/null; then
		[ -r "$mdir/modules.dep" ] || die "--record-base: no $mdir/modules.dep for virtio_blk (install linux-image-$KVER)"
		for want in virtio_pci virtio_blk; do
			m=$(grep -oE "^[^:]*/$want\.ko(\.xz|\.zst|\.gz)?:" "$mdir/modules.dep" | tr -d :) || true
			[ -n "$m" ] && mod_add "$m"
		done
		mkdir -p "$WORK/root/mods"
		for m in "${mods_order[@]}"; do
			b=$(basename "$m"); b=${b%.xz}; b=${b%.zst}; b=${b%.gz}
			case $m in
			*.xz) xz -dc "$mdir/$m" ;;
			*.zst) zstd -dc "$mdir/$m" ;;
			*.gz) gzip -dc "$mdir/$m" ;;
			*) cat "$mdir/$m" ;;
			esac >"$WORK/root/mods/$b" || die "--record-base: cannot unpack $mdir/$m"
			echo "$b" >>"$WORK/root/mods/order"
		done
		grep -q virtio_blk "$WORK/root/mods/order" 2>/dev/null || die "--record-base: no virtio_blk module for $KVER"
	fi
	# A sparse raw image; the guest writes one tar at its start.
	rm -f "$WORK/record.img"
	truncate -s 512M "$WORK/record.img"
	DRIVE=(-drive "file=$WORK/record.img,format=raw,if=virtio")
fi
(cd "$WORK/root" && find . | cpio -o -H newc --quiet | gzip -1) >"$WORK/initramfs.cpio.gz"

# TCG by default: it works everywhere. KVM is opt-in (SP_QEMU_KVM=1) because a
# /dev/kvm that exists is not always usable (on nested or restricted hosts
# -cpu host may abort and the default CPU hang).
# One host thread for both vCPUs (thread=single), not one each: with
# thread=multi Debian's 6.1 guest intermittently oopses when kprobes and
# kretprobes are armed or torn down while other threads run the patched
# functions (any module with such probes does it, not only this one).
# SP_QEMU_TCG_THREAD=multi brings the old setting back.
ACCEL=(-accel "tcg,thread=${SP_QEMU_TCG_THREAD:-single}")
if [ "${SP_QEMU_KVM:-0}" = 1 ] && [ -w /dev/kvm ] && [ "$ARCH" = amd64 ]; then ACCEL=(-enable-kvm -cpu host); fi
echo "== booting $KVER under qemu (${ACCEL[*]}), ${SECS}s per run, timeout ${TIMEOUT}s"
set +e
timeout --kill-after=10 "$TIMEOUT" "${QEMU[@]}" "${ACCEL[@]}" -smp 2 -m 1G \
	-kernel "$BOOT/vmlinuz-$KVER" -initrd "$WORK/initramfs.cpio.gz" \
	-append "console=$CONSOLE loglevel=4 panic=-1 oops=panic sp_seconds=$SECS sp_mm=$MMSC$EXTRA_APPEND" \
	"${DRIVE[@]}" -nographic -no-reboot -monitor none -serial stdio -display none \
	</dev/null >"$WORK/console.log" 2>&1
rc=$?
set -e
tr -d '\r' <"$WORK/console.log" >"$WORK/console.txt"
grep -E "^SPT" "$WORK/console.txt" >"$WORK/spt.txt" || true
for sc in $SCENARIOS; do
	[ -z "$TRACE_MS" ] || sed -n "s/^SPT $sc trace //p" "$WORK/spt.txt" >"$WORK/trace-$sc.txt"
done
[ $rc -ne 124 ] && [ $rc -ne 137 ] || { tail -40 "$WORK/console.txt"; die "guest timed out after ${TIMEOUT}s"; }
grep -q "^SPT_DONE" "$WORK/spt.txt" || { tail -60 "$WORK/console.txt"; die "guest did not finish (qemu rc $rc)"; }

# --record-base: the traces from the disk, and the critical thread's
# figures of each scenario's runs beside them.
if [ -n "$RECORD_DIR" ]; then
	rm -rf "$WORK/rec"
	tar -xf "$WORK/record.img" -C "$WORK" || die "--record-base: no tar on $WORK/record.img"
	cp "$WORK"/rec/base-*.trace "$RECORD_DIR/" || die "--record-base: no trace on the disk"
	cp "$WORK/console.txt" "$RECORD_DIR/console.txt"
	{
		printf "kernel\tscenario\trun\tops\tp50_us\tp999_us\tmax_us\tcrit_tid\n"
		for sc in $SCENARIOS; do
			for mode in base traced module; do
				g() { sed -n "s/^SPT $sc $mode SPW $1 //p" "$WORK/spt.txt" | head -1; }
				printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n" "$KVER" $sc $mode "$(g ops)" "$(g p50_us)" \
					"$(g p999_us)" "$(g max_us)" "$(g crit_tid)"
			done
		done
	} >"$RECORD_DIR/figures.tsv"
	echo "== recorded base runs in $RECORD_DIR: $(cd "$RECORD_DIR" && ls base-*.trace | tr '\n' ' ')"
fi

# Every field of struct sp_stats, from the one list (X(name, kind, help)).
SP_STAT_NAMES=$(sed -n 's/^[[:space:]]*X(\([a-z_0-9]*\),.*/\1/p' "$ROOT/include/superpass/stats.h")

fails=0
want() { # a check that must be reported PASS
	if grep -qE "^SPT_CHECK $1 PASS|^SPT [a-z]+ [a-z]+ SPW_CHECK $1 PASS" "$WORK/spt.txt"; then
		echo "ok   $1"
	else
		echo "FAIL $1"; fails=$((fails + 1))
	fi
}
for c in pcost_insmod pcost_rmmod dmesg_clean load_readers_off config_reader_tracking_off config_set_fifo_prio \
	config_depth_is_load_time config_readers_need_hooks mark_pid_marks_threads unmark_pid \
	unknown_tid_rejected rmmod_readers_off load_futex_off cycles_under_load \
	cli_status cli_config_set cli_config_load_time cli_config_unknown_key cli_config_refused \
	cli_mark_unknown_tid module_unknown_tid_esrch cli_stats_table cli_stats_json cli_list \
	fork_mark_pid fork_marks_new_threads fork_child_process_not_marked fork_unmark_pid \
	fork_unmarked_stays_unmarked fork_marks_counted \
	sec_writes_denied_nobody sec_writes_denied_userns-root sec_writes_denied_userns-nobody \
	sec_writes_denied_nobody-fd sec_stats_readable_nobody sec_stats_readable_userns-root \
	sec_stats_readable_userns-nobody sec_stats_readable_nobody-fd sec_nothing_changed \
	sec_critical_shows_own_threads_only \
	write_split_refused write_two_lines_refused write_line_marks config_write_without_newline_refused \
	mark_too_many_threads_refused cli_mark_too_many_threads mark_init_refused mark_kthread_refused \
	cli_mark_kthread_refused pidns_marks_by_ns_pid pidns_reads_ns_pids pidns_outside_pid_unknown \
	pidns_init_is_not_init pidns_unmarked rmmod_during_writes write_after_rmmod_refused \
	load_small_task_table table_full_refused_whole cli_table_full table_mark_that_fits \
	table_full_keeps_other_marks mark_kthread_allowed; do
	want $c
done
[ -z "$RECORD_DIR" ] || want record_disk
for sc in $SCENARIOS; do
	for c in insmod selftest bad_input_rejected bad_input_logged unloaded; do want "${sc}_$c"; done
	for c in mark_critical critical_dropped_on_exit restored_after_run rmmod_under_load restored_after_rmmod; do
		if grep -qE "^SPT $sc module SPW_CHECK $c PASS" "$WORK/spt.txt" &&
		   ! grep -qE "^SPT $sc module SPW_CHECK $c FAIL" "$WORK/spt.txt"; then
			echo "ok   ${sc}_$c"
		else
			echo "FAIL ${sc}_$c"; fails=$((fails + 1))
		fi
	done
	# The module saw the contention and fast-tracked the holders, and only them.
	fig() { sed -n "s/^SPT $sc $1 SPW$2 $3 //p" "$WORK/spt.txt" | head -1; }
	# futex: the waits the do_futex hook reported (a futex wait is no
	# kernel lock contention).
	case $sc in futex | go) bk=futex_waits ;; *) bk=detect_blocks ;; esac
	blk=$(fig module _STATS $bk); blk=${blk:-0}
	if [ "$blk" -gt 0 ]; then echo "ok   ${sc}_contention_seen ($blk)"; else echo "FAIL ${sc}_contention_seen"; fails=$((fails + 1)); fi
	# Holders must be fast-tracked; the critical thread never is (nothing
	# blocks on it), nor, in the file cases, the hogs (they take no lock).
	# Others can be real holders (khugepaged reads every mm's mmap_lock).
	holders=$(sed -n "s/^SPT $sc module SPW holder_tid //p" "$WORK/spt.txt" | tr '\n' ' ')
	nboost=0; wrong=""; others=""
	while read -r _ _ _ tid comm; do
		if [[ " $holders " == *" $tid "* ]]; then nboost=$((nboost + 1))
		# go: any of the runtime's threads may wake the critical thread's
		# park word (Go hands goroutines from thread to thread), a hog's
		# too, so a hog may be a candidate there.
		elif [ "$comm" = sp-crit ] || { [ $sc != $MMSC ] && [ $sc != go ] && [ "$comm" = sp-hog ]; }; then wrong="$wrong $tid($comm)"
		else others="$others $tid($comm)"; fi
	done < <(grep -E "^SPT $sc boost " "$WORK/spt.txt")
	if [ "$nboost" -gt 0 ] && [ -z "$wrong" ]; then
		others=$(printf '%s\n' $others | sort -u | xargs)
		echo "ok   ${sc}_granted_right_tids ($nboost logged boosts of holders $holders; others: ${others:-none})"
	else
		echo "FAIL ${sc}_granted_right_tids (holder boosts $nboost, wrong:$wrong)"; fails=$((fails + 1))
	fi
	# /proc/superpass/stats has every core statistic (include/superpass/stats.h
	# lists them once), and the module never sent the core a malformed event.
	missing=""
	for k in $SP_STAT_NAMES; do
		grep -qE "^SPT $sc module SPW_STATS $k [0-9]+$" "$WORK/spt.txt" || missing="$missing $k"
	done
	if [ -n "$SP_STAT_NAMES" ] && [ -z "$missing" ]; then
		echo "ok   ${sc}_stats_complete ($(echo $SP_STAT_NAMES | wc -w) core statistics)"
	else
		echo "FAIL ${sc}_stats_complete (missing:${missing:- the list in stats.h})"; fails=$((fails + 1))
	fi
	# The mutex release hook is on, and in fpos (f_pos_lock, a mutex) it saw
	# the holders release.
	uh=$(fig module _STATS unlock_hook)
	if [ "${uh:-0}" = 1 ]; then echo "ok   ${sc}_unlock_hook"; else echo "FAIL ${sc}_unlock_hook (${uh:-missing})"; fails=$((fails + 1)); fi
	if [ $sc = fpos ]; then
		un=$(fig module _STATS detect_unlocks)
		if [ "${un:-0}" -gt 0 ]; then echo "ok   ${sc}_unlocks_seen ($un)"; else echo "FAIL ${sc}_unlocks_seen"; fails=$((fails + 1)); fi
	fi
	# futex: the hook is on, saw the holders' wakes and returns, and the
	# core granted fast tracks from them.
	if [ $sc = futex ] || [ $sc = go ]; then
		for k in futex_hook futex_wakes futex_candidates grants; do
			v=$(fig module _STATS $k)
			if [ "${v:-0}" -gt 0 ]; then echo "ok   ${sc}_$k ($v)"; else echo "FAIL ${sc}_$k (${v:-missing})"; fails=$((fails + 1)); fi
		done
	fi
	bad=$(fig module _STATS bad_events)
	if [ "${bad:-x}" = 0 ]; then echo "ok   ${sc}_no_bad_events"; else echo "FAIL ${sc}_no_bad_events (${bad:-missing})"; fails=$((fails + 1)); fi
done
# The probe-cost loop ran 18 times and contended, and with its threads
# marked the module saw their waits.
pc_runs=$(grep -cE "^SPT pcost (base|idle|marked) " "$WORK/spt.txt" || true)
pc_sum=$(awk '$2 == "pcost" && ($3 == "base" || $3 == "idle" || $3 == "marked") { c += $10 } END { print c + 0 }' "$WORK/spt.txt")
if [ "$pc_runs" = 18 ] && [ "$pc_sum" -gt 0 ]; then echo "ok   pcost_contended ($pc_runs runs, $pc_sum contended acquisitions)"; else echo "FAIL pcost_contended (runs $pc_runs of 18, contended $pc_sum)"; fails=$((fails + 1)); fi
pc_blk=$(sed -n 's/^SPT pcost stats detect_blocks //p' "$WORK/spt.txt")
pc_mk=$(sed -n 's/^SPT pcost marked_threads //p' "$WORK/spt.txt")
if [ "${pc_mk:-0}" = 2 ] && [ "${pc_blk:-0}" -gt 0 ]; then echo "ok   pcost_marked_seen ($pc_blk blockings)"; else echo "FAIL pcost_marked_seen (marked ${pc_mk:-?}, blockings ${pc_blk:-?})"; fails=$((fails + 1)); fi
if grep -qE "SPW_CHECK .* FAIL|^SPT_CHECK .* FAIL" "$WORK/spt.txt"; then
	grep -E "SPW_CHECK .* FAIL|^SPT_CHECK .* FAIL" "$WORK/spt.txt"
	fails=$((fails + 1))
fi

echo
echo "== figures (benchmark, not asserted; $KVER, ${ACCEL[*]}, 2 vCPUs, ${SECS}s per run)"
echo "base: no module; idle: module loaded, nothing marked (probe cost); module: critical thread marked"
echo "work/s: KiB written (inode, fpos), pages faulted (mmap), pages populated (populate) or sections (futex) by the nice-19 threads"
printf "%-6s %-7s %7s %9s %11s %11s %11s %11s %11s\n" scen mode ops p50_us p99_us p99.9_us max_us \
	hog_iter/s work/s
for sc in $SCENARIOS; do
	for mode in base $([ -n "$RECORD_DIR" ] && echo traced) idle module; do
		g() { sed -n "s/^SPT $sc $mode SPW $1 //p" "$WORK/spt.txt" | head -1; }
		printf "%-6s %-7s %7s %9s %11s %11s %11s %11s %11s\n" $sc $mode "$(g ops)" "$(g p50_us)" \
			"$(g p99_us)" "$(g p999_us)" "$(g max_us)" "$(g hog_iters_per_s)" "$(g holder_work_per_s)"
	done
	for mode in idle module; do
		for k in hog_iters_per_s holder_work_per_s; do
			b=$(sed -n "s/^SPT $sc base SPW $k //p" "$WORK/spt.txt" | head -1)
			m=$(sed -n "s/^SPT $sc $mode SPW $k //p" "$WORK/spt.txt" | head -1)
			[ -n "$b" ] && [ -n "$m" ] && awk -v b="$b" -v m="$m" -v s="$sc" -v k="$k" -v o="$mode" \
				'BEGIN { if (b > 0) printf "%s %s/base %s ratio %.3f\n", s, o, k, m / b }'
		done
	done
	for k in blockings blocking_p50_ns blocking_p99_ns blocking_p999_ns grants expiries \
		throttles ends_throttle grants_refused owner_updates deadlocks stale_events bad_events \
		acquires releases detect_blocks detect_rereports detect_no_owner reader_hook_arms \
		detect_lock_expiries reader_overflows detect_reader_events detect_reader_hints detect_hidden_readers \
		act_boosts act_restores worker_ticks queue_pushes queue_dups detect_unlocks \
		detect_unlock_hints detect_unlock_busy $(case $sc in futex | go) echo futex_waits futex_wait_ends \
		futex_other_waits futex_timeouts futex_candidates futex_wakes futex_words_learned futex_hook_misses ;; esac); do
		printf "%s module stats %s %s\n" $sc $k "$(sed -n "s/^SPT $sc module SPW_STATS $k //p" "$WORK/spt.txt" | head -1)"
	done
done
for k in micro_fault_ns micro_write_ns; do
	b=$(sed -n "s/^SPT micro base SPW $k //p" "$WORK/spt.txt" | head -1)
	m=$(sed -n "s/^SPT micro loaded SPW $k //p" "$WORK/spt.txt" | head -1)
	echo "probe cost, no contention: $k without module ${b:-?}, loaded (nothing marked) ${m:-?}"
done
# Probe cost: per kind and mode, over the runs that contended on (nearly)
# every acquisition (a yield does not always hand the CPU over, and a
# fast-tracked holder may run several turns alone: then the loop measures
# something else), the fastest and the median ns per contended
# acquisition, and the fastest against base's.
echo "probe cost per contention event (sp_probe_cost.ko, 2 kthreads on one CPU; each contended acquisition:"
echo "  contention_begin x2 (mutex) or x1 (rwsem), contention_end, a slow-path release; runs contended on >= 90 %)"
for kind in mutex rwsem; do
	for mode in base idle marked; do
		awk -v k=$kind -v m=$mode '$2 == "pcost" && $3 == m && $4 == k { print m, $8, $10, $6 }' "$WORK/spt.txt"
	done | awk -v k=$kind '
		{ n[$1]++; if ($3 >= 1.8 * $4) { v[$1, ++ok[$1]] = $2 / $3 } }
		END {
			split("base idle marked", name, " ")
			for (g = 1; g <= 3; g++) {
				m = name[g]; c = ok[m] + 0
				for (i = 1; i <= c; i++) for (j = i + 1; j <= c; j++)
					if (v[m, j] < v[m, i]) { t = v[m, i]; v[m, i] = v[m, j]; v[m, j] = t }
				if (!c) { printf "probe cost %s %-6s n/a (none of %d runs contended on 90 %%)\n", k, m, n[m]; continue }
				best[m] = v[m, 1]
				printf "probe cost %s %-6s runs %d/%d ns/event min %.0f median %.0f", k, m, c, n[m], v[m, 1], v[m, int((c + 1) / 2)]
				if (m != "base" && best["base"])
					printf " ratio %.3f added %+.0f", v[m, 1] / best["base"], v[m, 1] - best["base"]
				printf "\n"
			}
		}'
done
sed -n 's/^SPT pcost stats /probe cost, marked: superpass stats /p' "$WORK/spt.txt"
sed -n 's/^SPT note /note: /p' "$WORK/spt.txt"
echo "console log: $WORK/console.txt"
[ $fails -eq 0 ] || die "$fails check(s) failed"
echo "PASS"

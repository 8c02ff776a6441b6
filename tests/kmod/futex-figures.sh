#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Figures of the futex and go scenarios (a benchmark: nothing asserted).
# Each boot of Debian's kernel under QEMU (TCG, 2 vCPUs) runs each scenario
# plain, then with superpass.ko loaded and the critical thread marked, and
# prints the critical thread's longest wait and P99.9 wait for the lock;
# at the end the median over the boots, the spread (min-max) and the cut of
# the longest wait. Only these two scenarios and nothing else, so a boot
# takes about 25 s of host time per scenario (run-qemu-test.sh runs them
# too, among its checks).
#
#   tests/kmod/futex-figures.sh [--kernel 6.1|6.12|RELEASE] [--boots N]
#                               [--seconds N] [--workdir DIR]
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
KSEL=6.1
BOOTS=3
SECS=8
WORK=${TMPDIR:-/tmp}/superpass-futex-figures
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) KSEL=$2; shift 2 ;;
	--boots) BOOTS=$2; shift 2 ;;
	--seconds) SECS=$2; shift 2 ;;
	--workdir) WORK=$2; shift 2 ;;
	*) echo "usage: $0 [--kernel SERIES|RELEASE] [--boots N] [--seconds N] [--workdir DIR]" >&2; exit 2 ;;
	esac
done
case "$KSEL" in *-amd64) KVER=$KSEL ;; *) KVER=$(ls -v /boot/vmlinuz-$KSEL.*-amd64 2>/dev/null | grep -v -- -rt- | tail -1 | sed 's|/boot/vmlinuz-||') ;; esac
[ -n "$KVER" ] && [ -d /usr/src/linux-headers-$KVER ] || { echo "SKIP: no /boot/vmlinuz-$KSEL.*-amd64 with headers"; exit 77; }

rm -rf "$WORK"
mkdir -p "$WORK/root/bin" "$WORK/root/proc" "$WORK/root/sys" "$WORK/root/tmp"
make -s -C "$ROOT/kmod" KDIR=/usr/src/linux-headers-$KVER OUT="$WORK/kbuild" >"$WORK/kbuild.log" 2>&1 ||
	{ cat "$WORK/kbuild.log"; exit 1; }
cp "$WORK/kbuild/superpass.ko" "$WORK/root/"
gcc -static -O2 -pthread -o "$WORK/root/spw" "$HERE/sp_kmod_workload.c"
SCENS=futex
if command -v go >/dev/null; then
	(cd "$HERE/go" && CGO_ENABLED=0 go build -o "$WORK/root/spgo" sp_kmod_go.go)
	SCENS="futex go"
fi
cp /bin/busybox "$WORK/root/bin/busybox"
ln -s busybox "$WORK/root/bin/sh"
cat >"$WORK/root/init" <<GUEST
#!/bin/sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t tmpfs tmpfs /tmp
for sc in $SCENS; do
	p=/spw; [ \$sc = go ] && p=/spgo
	\$p --scenario \$sc --seconds $SECS | sed -n "s/^SPW \(ops\|p999_us\|max_us\) /FIG \$sc base \1 /p"
	insmod /superpass.ko selftest=0
	\$p --scenario \$sc --seconds $SECS --module | sed -n "s/^SPW \(ops\|p999_us\|max_us\) /FIG \$sc module \1 /p"
	grep -q '^superpass ' /proc/modules && rmmod superpass
done
poweroff -f
GUEST
chmod +x "$WORK/root/init"
(cd "$WORK/root" && find . | cpio -o -H newc --quiet | gzip -1) >"$WORK/initramfs.cpio.gz"

: >"$WORK/figs.txt"
for b in $(seq 1 "$BOOTS"); do
	timeout 600 qemu-system-x86_64 -accel tcg,thread=single -smp 2 -m 1G \
		-kernel /boot/vmlinuz-$KVER -initrd "$WORK/initramfs.cpio.gz" \
		-append "console=ttyS0 loglevel=3 panic=-1" -nographic -no-reboot \
		-monitor none -serial stdio -display none </dev/null 2>&1 | tr -d '\r' |
		sed -n "s/^FIG /$b /p" | tee -a "$WORK/figs.txt"
done
echo "== $KVER, TCG (one host thread), 2 vCPUs, ${SECS}s per run, $BOOTS boots: the critical thread's waits for the lock, ms"
for sc in $SCENS; do
	for k in max_us p999_us; do
		for mode in base module; do
			awk -v s=$sc -v m=$mode -v k=$k '$2 == s && $3 == m && $4 == k { print $5 / 1000 }' "$WORK/figs.txt" | sort -g |
				awk -v s=$sc -v m=$mode -v k=$k '{ v[NR] = $1 } END { if (NR) printf "%s %s %s median %.1f min %.1f max %.1f n %d\n", s, k, m, v[int((NR + 1) / 2)], v[1], v[NR], NR }'
		done
	done
done | tee "$WORK/summary.txt"
awk '$3 == "base" { b[$1 " " $2] = $5 } $3 == "module" { m[$1 " " $2] = $5 }
	END { for (x in b) if (b[x] > 0) printf "%s cut of the median %.1f %%\n", x, 100 * (1 - m[x] / b[x]) }' "$WORK/summary.txt" | sort

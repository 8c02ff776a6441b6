#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# ctest "install.prefix": the build installed to a temporary prefix runs
# from there with no LD_LIBRARY_PATH (`superpass --version`, each
# `superpass CMD --version`, `superpass run` with the prefix's own
# interposer), and programs build against it with find_package(superpass)
# and with pkg-config, for libsuperpass and libsuperpass-sim; then the
# prefix is moved elsewhere and all of it again (nothing may name the old
# place). Also: the interposer's SONAME, RUNPATHs relative to $ORIGIN, and
# the `superpass kmod` hint of an installed binary.
#   check-install.sh BUILD_DIR SOURCE_DIR BINDIR LIBDIR ABI VERSION
#   (CC, CFLAGS: the compiler and flags of the build, for the programs;
#    CMAKE, PKG_CONFIG, READELF: the tools)
set -eu
build=$1 src=$2 bindir=$3 libdir=$4 abi=$5 version=$6
. "$(dirname "$0")/../cli-lib.sh"
expect_rc() { cli_expect_rc "$@"; } # WANT WHAT CMD...
cmake=${CMAKE:-cmake} pkgconfig=${PKG_CONFIG:-pkg-config} readelf=${READELF:-readelf}
cc=${CC:-cc} cflags=${CFLAGS:-}
unset LD_LIBRARY_PATH
preload=libsuperpass-preload.so.$abi

mkdir "$tmp/first"
"$cmake" --install "$build" --prefix "$tmp/first/prefix" >"$tmp/install.log" 2>&1 ||
	{ cat "$tmp/install.log"; cli_die "cmake --install $build --prefix $tmp/first/prefix failed"; }

# check_prefix P WHAT: everything above, run from prefix P.
check_prefix() {
	p=$(cd "$1" && pwd -P) what=$2
	sp=$p/$bindir/superpass

	if expect_rc 0 "$what: superpass --version" "$sp" --version; then
		grep -qF "superpass $version" "$tmp/out" ||
			cli_fail "$what: superpass --version says '$(cat "$tmp/out")', want $version"
	fi
	for c in bench run sim record analyze replay kmod; do
		expect_rc 0 "$what: superpass $c --version" "$sp" "$c" --version || :
	done
	# The project's libraries come from the prefix itself.
	ldd "$sp" >"$tmp/ldd" 2>&1 || :
	grep 'libsuperpass' "$tmp/ldd" | while read -r name _ path _; do
		real=$(readlink -f "$path" || :)
		[ "${real%/*}" = "$p/$libdir" ] || echo "$name => $path"
	done >"$tmp/outside"
	if [ -s "$tmp/outside" ]; then
		cat "$tmp/outside"
		cli_fail "$what: superpass loads a libsuperpass from outside $p/$libdir"
	fi

	# `superpass run` preloads the prefix's interposer, by its SONAME.
	if expect_rc 0 "$what: superpass run" "$sp" run -q -c main -- /usr/bin/env; then
		line=$(grep '^LD_PRELOAD=' "$tmp/out" || :)
		val=${line#LD_PRELOAD=}
		[ "${val##*:}" = "$p/$libdir/$preload" ] ||
			cli_fail "$what: superpass run preloads '${val##*:}', want $p/$libdir/$preload"
	fi

	# find_package(superpass), as examples/ and a user's project do.
	b=$tmp/cmake-$what
	if "$cmake" -S "$src/tests/install/consumer" -B "$b" -DCMAKE_PREFIX_PATH="$p" \
		-DCMAKE_C_COMPILER="$cc" -DCMAKE_C_FLAGS="$cflags" >"$tmp/log" 2>&1 &&
		"$cmake" --build "$b" >>"$tmp/log" 2>&1; then
		check_programs "$what (find_package)" "$b/use_superpass" "$b/use_sim"
	else
		cat "$tmp/log"
		cli_fail "$what: the find_package(superpass) project does not build"
	fi

	# pkg-config, with the library directory it gives as the RUNPATH.
	b=$tmp/pc-$what
	mkdir -p "$b"
	for m in superpass:use_superpass superpass-sim:use_sim; do
		if flags=$(PKG_CONFIG_PATH=$p/$libdir/pkgconfig "$pkgconfig" --cflags --libs "${m%%:*}") &&
			dir=$(PKG_CONFIG_PATH=$p/$libdir/pkgconfig "$pkgconfig" --variable=libdir "${m%%:*}") &&
			# shellcheck disable=SC2086 # flags are words
			"$cc" $cflags -o "$b/${m#*:}" "$src/tests/install/consumer/${m#*:}.c" $flags \
				-Wl,-rpath,"$dir" >"$tmp/log" 2>&1; then
			:
		else
			cat "$tmp/log"
			cli_fail "$what: cannot build ${m#*:} with pkg-config --cflags --libs ${m%%:*}"
		fi
	done
	check_programs "$what (pkg-config)" "$b/use_superpass" "$b/use_sim"
}

# check_programs WHAT USE_SUPERPASS USE_SIM: they run and say what they should.
check_programs() {
	if expect_rc 0 "$1: use_superpass" "$2"; then
		grep -qxF "superpass $version: 100 values, max 100" "$tmp/out" ||
			cli_fail "$1: use_superpass printed '$(cat "$tmp/out")'"
	fi
	if expect_rc 0 "$1: use_sim" "$3"; then
		grep -qxF "sim: workload installed, policy superpass" "$tmp/out" ||
			cli_fail "$1: use_sim printed '$(cat "$tmp/out")'"
	fi
}

# The interposer's SONAME, and the link that LD_PRELOAD by hand names.
l=$tmp/first/prefix/$libdir
soname=$("$readelf" -d "$l/$preload" 2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\].*/\1/p')
[ "$soname" = "$preload" ] || cli_fail "$l/$preload has SONAME '$soname', want $preload"
[ "$(readlink "$l/libsuperpass-preload.so" || :)" = "$preload" ] ||
	cli_fail "$l/libsuperpass-preload.so is not a link to $preload"
# RUNPATHs name only $ORIGIN-relative places: nothing of the build tree.
for f in "$tmp/first/prefix/$bindir/superpass" "$l"/lib*.so.*; do
	[ -L "$f" ] && continue
	rp=$("$readelf" -d "$f" | sed -n 's/.*(RUNPATH).*\[\(.*\)\].*/\1/p')
	case ":$rp" in
	*:/*) cli_fail "$f has an absolute RUNPATH '$rp'" ;;
	*) echo "ok: ${f##*/}: RUNPATH '$rp'" ;;
	esac
done

check_prefix "$tmp/first/prefix" installed
mkdir "$tmp/second"
mv "$tmp/first/prefix" "$tmp/second/moved"
rmdir "$tmp/first"
check_prefix "$tmp/second/moved" moved

# `superpass kmod` from an install says how to load the module as it is
# here: modprobe when the running kernel's modules.dep lists superpass.ko,
# else insmod of one built beside the binary (BUILD/kmod next to
# BUILD/tools), else how to install or build it.
p=$tmp/second/moved sp=$tmp/second/moved/$bindir/superpass
installed=0
grep -qE '(^|/)superpass\.ko(\.[a-z]+)?:' "/lib/modules/$(uname -r)/modules.dep" 2>/dev/null &&
	installed=1
hint() { # WANT WHAT
	expect_rc 1 "kmod hint: $2" "$sp" kmod --proc "$tmp/no-such-proc" list || return 0
	grep -qF -- "$1" "$tmp/err" || { cli_fail "kmod hint: $2: stderr lacks '$1':"; cat "$tmp/err"; }
}
mkdir -p "$p/$bindir/../kmod"
: >"$p/$bindir/../kmod/superpass.ko"
if [ "$installed" = 1 ]; then
	hint '`modprobe superpass`' "installed module"
else
	hint "\`insmod $(cd "$p/$bindir/../kmod" && pwd -P)/superpass.ko\`" "module beside the binary"
fi
rm -r "$p/$bindir/../kmod"
if [ "$installed" = 1 ]; then
	hint '`modprobe superpass`' "installed module"
elif [ -r "$src/build/kmod/superpass.ko" ]; then
	hint "\`insmod $src/build/kmod/superpass.ko\`" "module in the source tree"
else
	hint "dkms install superpass/$version -k \$(uname -r)" "no module"
fi
exit "$fail"

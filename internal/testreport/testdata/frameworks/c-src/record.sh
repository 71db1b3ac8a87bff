#!/usr/bin/env bash
# Builds the C/C++ framework test programs beside this script in a scratch
# directory and records their output into ../FRAMEWORK/*.log (see README).
# Each recording is the program's stdout and stderr together, written to a
# file (which buffers stdout as a pipe does). Needs libboost-test-dev,
# libcunit1-dev, check, libcmocka-dev, libcriterion-dev and a Unity source
# tree (UNITY, by default cJSON 1.7.15's bundled copy in the corpus cache).
set -u
SRC=$(cd "$(dirname "$0")" && pwd)
OUT=$(dirname "$SRC")
UNITY=${UNITY:-$HOME/.cache/triage/corpus/c/cjson/tests/unity/src}
B=$(mktemp -d)
trap 'rm -rf "$B"' EXIT
cp "$SRC"/*.c "$SRC"/*.cpp "$SRC"/fault.h "$SRC"/Makefile "$B"/
cd "$B"
gcc -g -O0 -o check_t check_t.c $(pkg-config --cflags --libs check)
gcc -g -O0 -o cmocka_t cmocka_t.c -lcmocka
gcc -g -O0 -o criterion_t criterion_t.c -lcriterion
gcc -g -O0 -o cunit_t cunit_t.c -lcunit
gcc -g -O0 -o cunit_x cunit_x.c -lcunit
gcc -g -O0 -I"$UNITY" -o unity_t unity_t.c "$UNITY/unity.c"
g++ -g -O0 -o boost_t boost_t.cpp
g++ -g -O0 -o boost_x boost_x.cpp
mkdir -p "$OUT"/{boost-test,check,cmocka,criterion,cunit,unity}
rec() { # dir name fault command...
	local dir=$1 name=$2 fault=$3; shift 3
	CFW_FAULT=$fault "$@" > "$OUT/$dir/$name.log" 2>&1
	echo "$dir/$name.log	exit $?" >> "$SRC/exit-status.tsv"
}
: > "$SRC/exit-status.tsv"
for f in pass fail segv abort exit0; do
	fault=$f; [ "$f" = pass ] && fault=
	rec check check-fork-$f "$fault" env CK_VERBOSITY=verbose ./check_t
	rec check check-nofork-$f "$fault" env CK_FORK=no CK_VERBOSITY=verbose ./check_t
	rec cmocka cmocka-$f "$fault" ./cmocka_t
	rec criterion criterion-$f "$fault" ./criterion_t
	rec criterion criterion-verbose-$f "$fault" ./criterion_t --verbose -j1
	rec boost-test boost-test-$f "$fault" ./boost_t
	rec boost-test boost-test-log-$f "$fault" ./boost_t --log_level=test_suite --report_level=short --color_output=no
	rec cunit cunit-$f "$fault" ./cunit_t
	rec unity unity-$f "$fault" stdbuf -oL ./unity_t
done
rec check check-fork-normal-pass "" ./check_t
rec check check-fork-normal-fail fail ./check_t
rec check check-fork-normal-segv segv ./check_t
rec check check-nofork-segv-make segv env CK_FORK=no CK_VERBOSITY=verbose make -s test PROG=check_t
rec cmocka cmocka-abort-make abort make -s test PROG=cmocka_t
rec criterion criterion-verbose-killrunner killrunner ./criterion_t --verbose -j1
rec cunit cunit-normal-pass "" env CFW_CU_MODE=normal ./cunit_t
rec cunit cunit-normal-fail fail env CFW_CU_MODE=normal ./cunit_t
rec cunit cunit-segv-make segv make -s test PROG=cunit_t
rec cunit cunit-inactive-initfail "" ./cunit_x
rec boost-test boost-test-extra "" ./boost_x --color_output=no
rec boost-test boost-test-log-extra "" ./boost_x --log_level=test_suite --report_level=short --color_output=no

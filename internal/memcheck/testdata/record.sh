#!/bin/sh
# Records valgrind's XML for each program in src/ into xml/, the way
# memcheck.Command runs valgrind (see README.md). Run from this directory:
#   sh record.sh
set -eu
here=$(pwd)
work=/tmp/memcheck-record
rm -rf "$work" && mkdir -p "$work" "$here/xml"
cp src/*.c src/*.cpp "$work"/
cd "$work"
for src in *.c *.cpp; do
	name=${src%.*}
	case $src in
	*.cpp) g++ -g -O0 -o "$name" "$src" ;;
	*) gcc -g -O0 -o "$name" "$src" ;;
	esac
	leaks="--leak-check=no --show-leak-kinds=none --errors-for-leak-kinds=none"
	[ "$name" = leak ] && leaks="--leak-check=full --show-leak-kinds=definite --errors-for-leak-kinds=definite"
	# shellcheck disable=SC2086
	valgrind --tool=memcheck --xml=yes --xml-file="$here/xml/$name.xml" --error-exitcode=223 \
		--num-callers=24 --child-silent-after-fork=yes $leaks --track-origins=yes "./$name" \
		>/dev/null 2>&1 || echo "$name: valgrind exited with $?"
done

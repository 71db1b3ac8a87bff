#!/bin/sh
# Records the go-text (and some go-json) logs of this directory from real
# `go test` runs: a module of small packages, one fault each, written to
# /tmp/gotext-fixture (a fixed path, so that traces name the same files
# each time). Run from this directory: sh record.sh
set -u
out=$(pwd)
m=/tmp/gotext-fixture
rm -rf "$m" && mkdir -p "$m" && cd "$m" || exit 1
cat > go.mod <<'X'
module example.com/gt

go 1.26
X
mkdir calc hash notests fail nilderef timeout exit0 exit1 mainfatal buildfail setupfail race par subpanic gopanic subhang
cat > calc/calc.go <<'X'
package calc

func Add(a, b int) int { return a + b }
X
cat > calc/calc_test.go <<'X'
package calc

import "testing"

func TestAdd(t *testing.T) {
	t.Log("adding")
	if Add(1, 2) != 3 {
		t.Fatal("bad")
	}
}

func TestSub(t *testing.T) {
	t.Run("one", func(t *testing.T) {})
	t.Run("two", func(t *testing.T) { t.Log("in two") })
}

func TestSkip(t *testing.T) { t.Skip("not today") }

func TestPar1(t *testing.T) { t.Parallel() }
func TestPar2(t *testing.T) { t.Parallel() }
X
cat > hash/hash.go <<'X'
package hash

func Sum(b []byte) (n int) {
	for _, c := range b {
		n += int(c)
	}
	return n
}
X
cat > hash/hash_test.go <<'X'
package hash

import "testing"

func TestSum(t *testing.T) {
	if Sum([]byte{1, 2}) != 3 {
		t.Fatal("bad")
	}
}
X
printf 'package notests\n\nfunc X() {}\n' > notests/n.go
cat > fail/fail_test.go <<'X'
package fail

import "testing"

func add(a, b int) int { return a + b }

func TestOK(t *testing.T) {}

func TestWrong(t *testing.T) {
	got := add(2, 2)
	if got != 5 {
		t.Errorf("add(2, 2) = %d, want 5\nsecond line", got)
	}
}

func TestSub(t *testing.T) {
	t.Run("one", func(t *testing.T) {})
	t.Run("zero", func(t *testing.T) { t.Error("zero is wrong") })
}
X
cat > nilderef/n.go <<'X'
package nilderef

type T struct{ X int }

func Get(t *T) int {
	return t.X
}
X
cat > nilderef/n_test.go <<'X'
package nilderef

import "testing"

func TestOK(t *testing.T) {}

func TestNil(t *testing.T) {
	if Get(nil) != 0 {
		t.Fatal("x")
	}
}

func TestNever(t *testing.T) {}
X
cat > timeout/t_test.go <<'X'
package timeout

import (
	"testing"
	"time"
)

func TestQuick(t *testing.T) {}

func TestHang(t *testing.T) {
	time.Sleep(time.Hour)
}
X
cat > exit0/e_test.go <<'X'
package exit0

import (
	"syscall"
	"testing"
)

func TestBefore(t *testing.T) {}

func TestMid(t *testing.T) {
	t.Log("about to exit")
	syscall.Exit(0)
}

func TestAfter(t *testing.T) {}
X
cat > exit1/e_test.go <<'X'
package exit1

import (
	"fmt"
	"os"
	"testing"
)

func TestFirst(t *testing.T) {}

func TestExits(t *testing.T) {
	fmt.Println("about to exit")
	os.Exit(1)
}
X
cat > mainfatal/m_test.go <<'X'
package mainfatal

import (
	"log"
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	if os.Getenv("NO_SUCH_VARIABLE") == "" {
		log.Fatal("setup: no database")
	}
	os.Exit(m.Run())
}

func TestX(t *testing.T) {}
X
printf 'package buildfail\n\nfunc F() int {\n\treturn y\n}\n' > buildfail/b.go
printf 'package buildfail\n\nimport "testing"\n\nfunc TestF(t *testing.T) { F() }\n' > buildfail/b_test.go
printf 'package setupfail\n\nimport (\n\t"testing"\n\n\t"example.com/gt/nosuch"\n)\n\nfunc TestS(t *testing.T) { nosuch.X() }\n' > setupfail/s_test.go
cat > race/r.go <<'X'
package race

import "sync"

func Count(n int) int {
	var wg sync.WaitGroup
	total := 0
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			total++
		}()
	}
	wg.Wait()
	return total
}
X
cat > race/r_test.go <<'X'
package race

import "testing"

func TestCount(t *testing.T) { Count(4) }
X

cat > par/par_test.go <<'X'
package par

import "testing"

var ping, pong = make(chan bool), make(chan bool)

func TestP1(t *testing.T) {
	t.Parallel()
	t.Log("one")
	ping <- true
	<-pong
	t.Error("three")
}

func TestP2(t *testing.T) {
	t.Parallel()
	<-ping
	t.Log("two")
	pong <- true
}
X
cat > subpanic/s_test.go <<'X'
package subpanic

import "testing"

func TestSub(t *testing.T) {
	t.Run("ok", func(t *testing.T) {})
	t.Run("boom", func(t *testing.T) {
		var m map[string]int
		m["x"] = 1
	})
}
X
cat > gopanic/g_test.go <<'X'
package gopanic

import (
	"testing"
	"time"
)

func TestFirst(t *testing.T) {}

func TestGo(t *testing.T) {
	go func() { panic("in goroutine") }()
	time.Sleep(time.Second)
}
X
cat > subhang/h_test.go <<'X'
package subhang

import (
	"testing"
	"time"
)

func TestP1(t *testing.T) { t.Parallel(); time.Sleep(time.Hour) }

func TestSub(t *testing.T) {
	t.Run("hang", func(t *testing.T) { time.Sleep(time.Hour) })
}
X

rec() { # rec NAME DIR COMMAND...: the command's output and 2>&1, as a user pipes it
	name=$1 dir=$2
	shift 2
	(cd "$dir" && "$@" >"$out/$name" 2>&1)
}
export GOFLAGS=-count=1
rec pass.txt . go test ./calc ./hash ./notests
rec pass-v.txt . go test -v ./calc ./hash ./notests
rec pass-local.txt calc go test
GOFLAGS= go test ./calc ./hash >/dev/null 2>&1
GOFLAGS= rec cached.txt . go test ./calc ./hash
GOFLAGS= go test -v ./calc ./hash >/dev/null 2>&1
GOFLAGS= rec cached-v.txt . go test -v ./calc ./hash
rec fail.txt . go test ./fail ./hash
rec fail-v.txt . go test -v ./fail ./hash
rec fail-local.txt fail go test
rec panic.txt . go test ./nilderef
rec panic-v.txt . go test -v ./nilderef
rec panic.json . go test -json ./nilderef
rec timeout.txt . go test -timeout 2s ./timeout
rec timeout-v.txt . go test -v -timeout 2s ./timeout
rec timeout.json . go test -json -timeout 2s ./timeout
rec exit0.txt . go test ./exit0 ./hash
rec exit0-v.txt . go test -v ./exit0 ./hash
rec exit0-local.txt exit0 go test
rec exit1.txt . go test ./exit1
rec exit1-v.txt . go test -v ./exit1
rec exit1.json . go test -json ./exit1
rec testmain-fatal.txt . go test ./mainfatal
rec testmain-fatal-v.txt . go test -v ./mainfatal
rec build-fail.txt . go test ./buildfail ./hash
rec setup-fail.txt . go test ./setupfail
rec race.txt . go test -race ./race
rec race-v.txt . go test -race -v ./race
rec par.txt . go test ./par
rec par-v.txt . go test -v ./par
rec subpanic.txt . go test ./subpanic
rec subpanic-v.txt . go test -v ./subpanic
rec subpanic.json . go test -json ./subpanic
rec gopanic.txt . go test ./gopanic
rec gopanic-v.txt . go test -v ./gopanic
rec subhang.txt . go test -timeout 2s ./subhang
rec subhang-v.txt . go test -v -timeout 2s ./subhang
rec subhang.json . go test -json -timeout 2s ./subhang

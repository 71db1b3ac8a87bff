package capture_test

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/triage-dev/triage/internal/capture"
	"github.com/triage-dev/triage/internal/store"
)

// BenchmarkCapture streams 256 MiB of a build log through a capture (the
// store, the excerpt and the line count, as run captures a program's
// output) in 32 KiB writes, the size of the runner's reads.
func BenchmarkCapture(b *testing.B) {
	ctx := context.Background()
	var block bytes.Buffer
	for i := 0; block.Len() < 32<<10; i++ {
		if i%5000 == 17 {
			fmt.Fprintf(&block, "src/module.c:%d:5: error: use of undeclared identifier 'boom_%d'\n", i, i)
			continue
		}
		fmt.Fprintf(&block, "[%6d/999999] Compiling src/module/file_%d.c -o build/obj/file_%d.o -O2 -g\n", i, i, i)
	}
	const size = 256 << 20
	st, err := store.Open(ctx, filepath.Join(b.TempDir(), "bench.db"), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	b.SetBytes(size)
	for b.Loop() {
		c, err := capture.Open(ctx, st, store.Meta{Tool: "bench"}, capture.Options{Budget: 16 << 10})
		if err != nil {
			b.Fatal(err)
		}
		for written := 0; written < size; written += block.Len() {
			c.Write(block.Bytes())
		}
		if res := c.Finish(ctx, store.Final{Status: "success"}); res.Err != nil {
			b.Fatal(res.Err)
		}
	}
}

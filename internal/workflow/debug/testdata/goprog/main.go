// Command goprog is a debug target for the debug workflow's tests.
package main

import (
	"fmt"
	"os"
)

//go:noinline
func add(a, b int) int {
	sum := a + b
	return sum
}

func main() {
	total := 0
	for i := range 5 {
		total = add(total, i)
	}
	fmt.Println("total", total)
	os.Exit(3)
}

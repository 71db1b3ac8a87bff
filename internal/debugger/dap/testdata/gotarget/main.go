package main

import (
	"fmt"
	"os"
)

type point struct{ X, Y int }

func add(a, b int) int {
	sum := a + b
	return sum
}

func main() {
	pt := point{3, 4}
	total := 0
	for i := 0; i < 5; i++ {
		total = add(total, i) // line 19
	}
	fmt.Println(total, pt.X)
	os.Exit(3)
}

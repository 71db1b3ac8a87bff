//go:build ignore

package main

func main() {
	var m map[string]int
	m["k"] = 1
}

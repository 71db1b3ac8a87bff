// Command gopanic panics in explode and recovers in main: a panic stop
// must come in runtime.gopanic, before the deferred recover runs.
package main

import "fmt"

var recovered bool

func explode(n int) int {
	if n > 2 {
		panic(fmt.Sprintf("too big: %d", n))
	}
	return n
}

func main() {
	defer func() {
		if r := recover(); r != nil {
			recovered = true
			fmt.Println("recovered", r)
		}
	}()
	explode(3)
}

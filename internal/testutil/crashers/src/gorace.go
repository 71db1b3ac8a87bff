//go:build ignore

package main

import "fmt"

func main() {
	n := 0
	done := make(chan bool)
	go func() { n++; done <- true }()
	n++
	<-done
	fmt.Println(n)
}

// Command gowatch writes two globals, the second one first: a stop at a
// data breakpoint the adapter does not name is told by the value that
// changed. The last write is the instruction right after a watched write,
// where the stop before it leaves the pc.
package main

var first, second int

func main() {
	second = 2
	println("between the writes")
	first = 1
	second = 3
	println(first, second)
}

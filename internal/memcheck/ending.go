package memcheck

// Ending says how the program ended as valgrind saw it ("the program died
// of SIGSEGV at fakemsg.c:7 in main", "the program exited with status 0"):
// what a caller that words a clean run its own way (a rerun of a crash)
// adds to its "no memory error seen".
func (r *Result) Ending() string { return programEnd(r) }

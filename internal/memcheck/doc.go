// Package memcheck runs one program under valgrind's memcheck and reads its
// first memory error as data: the cause of a crash that happens later,
// somewhere else (a heap overflow, a use after free, a double free, an
// uninitialised value deciding a branch), named where it happens.
//
// The model. Run starts valgrind (through spawn: its own process group, a
// time limit, every child reaped) with the program's argv, directory and
// environment, and has it write its machine format, the XML of valgrind's
// protocol 4 (docs/internals/xml-output-protocol4.txt in valgrind's
// sources), to a file in a temporary directory; valgrind's text and the
// program's own output go to the caller's sinks. Parse reads that XML into
// a Log: the errors in the order valgrind reported them, each a Report, and
// whether the document was whole. A Report is one error: valgrind's kind
// and its plain words ("heap buffer overflow: invalid read of size 8"), the
// access (read or write, and its size), the stack where it happened, the
// auxiliary stacks with valgrind's words for them (where the block was
// allocated, where it was freed, where an uninitialised value was created),
// the block the address falls in and how far from it, and, in each stack,
// the frame to name: the first frame in the project's own code by
// crashsite's rule, valgrind's own preloaded allocator and system libraries
// without sources never chosen.
//
// The outcome is never guessed. Found: valgrind reported at least one
// error. Clean: valgrind ran the program to its end (its XML says FINISHED
// and closes) and reported none, which is "no memory error seen", not "no
// memory error". Incomplete: anything else (the time limit passed, the
// context was cancelled, valgrind could not start the program, its XML is
// missing, cut or not valgrind's), with the reason in words.
//
// Valgrind's quirks this package relies on: it exits with the status given
// by --error-exitcode (ErrorExitCode here) when it counted errors and the
// program exited; when the program dies of a signal, valgrind writes a
// <fatal_signal> and the rest of its XML, then kills itself with that
// signal; leak errors come after the FINISHED status; an <auxwhat> comes
// before the stack it describes, and the use after free's "Block was
// alloc'd at" is a second auxwhat and stack after the "free'd" one; under
// --xml=yes, --leak-check=no alone still reports and counts definite leaks
// (valgrind 3.19), so the leak kinds shown and counted are set to none too.
// Leaks are checked only when asked (Options.Leaks), and then definite
// leaks count as errors.
//
// The same run and reading serve valgrind's thread checker: Options.Tool
// ToolHelgrind runs helgrind, whose data races and lock order violations
// are Reports in the same shape (helgrind.go), named "helgrind: …".
//
// Everything is bounded: the XML read (MaxXMLBytes), the errors kept
// (MaxErrors), the frames of a stack (MaxFrames), the auxiliary stacks of
// an error, the length of every text field, and the Detail text.
package memcheck

// Package repl drives an interactive command-line program (gdb, lldb, crash,
// drgn, ...) over pipes, one command at a time, and returns each command's
// output.
//
// # The contract
//
// A Session owns one engine process, started through internal/spawn so it runs
// in its own process group and is killed as a group. Run writes the command,
// then a sentinel command, to the engine's stdin, and collects stdout and
// stderr (interleaved in arrival order) until the sentinel's result appears.
// The sentinel must be echo-proof: its command text must not contain what it
// prints. The default, SumSentinel, asks the engine to add two numbers
// (`p 734012+3`) and waits for the sum (`734015`) as a whole word, so neither
// an echoed command nor anything that merely looks like a prompt can end a
// command early. Output ends at the start of the line holding the sentinel's
// result; prompts (Config.Prompt) at line starts and echoes of the command
// are removed, and ANSI escape sequences are stripped.
//
// Engines configure a unique prompt through their argv or init commands; the
// prompt is only ever stripped from output, never used to detect the end of
// a command.
//
// Commands are serialized per session: a second Run waits for the first (or
// for its own ctx). Each command has a timeout. When it fires, the engine is
// interrupted (SIGINT to the engine, by default) and given InterruptGrace to
// print the sentinel; if it does, Run returns an error wrapping ErrTimeout and
// the session stays usable. If it does not, the process group is killed, the
// session is marked dead, and Run's error wraps both ErrTimeout and ErrDead;
// Restart starts a fresh engine with the same Config. If the engine exits on
// its own while a command runs, Run returns an *ExitError (wrapping ErrDead)
// with the exit status and the tail of its output.
package repl

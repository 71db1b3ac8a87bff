package debug

import (
	"context"

	"github.com/triage-dev/triage/internal/debugger"
	"github.com/triage-dev/triage/internal/fault"
)

// frameID turns the frame a caller names — the #N debug_stack prints —
// into the backend's frame id (a DAP adapter's ids are its own numbers,
// 524289 for lldb-dap's #1). 0 is the top frame, as before. A number that
// is no frame's index but one's id (a caller that read ids from the
// structured stack) is taken as that id; anything else is refused, naming
// the frames there are, rather than answered about no frame at all.
func frameID(ctx context.Context, b debugger.Backend, thread, n int) (int, error) {
	if n == 0 {
		return 0, nil
	}
	if n < 0 {
		return 0, fault.Usagef("frame %d: give a frame's #N from debug_stack (0 or more)", n)
	}
	levels := maxFrameLookup
	if n < 1000 { // an index; a larger number is read as an id
		levels = max(n+1, maxFrameLookup)
	}
	frames, err := b.Stack(ctx, thread, levels)
	if err != nil {
		return 0, err
	}
	for _, f := range frames {
		if f.Index == n {
			return f.ID, nil
		}
	}
	for _, f := range frames {
		if f.ID == n {
			return f.ID, nil
		}
	}
	return 0, fault.Usagef("no frame #%d: the stopped thread has %d frames (#0–#%d); debug_stack lists them", n, len(frames), max(len(frames)-1, 0))
}

// maxFrameLookup is how many frames a lookup by id reads: as many as
// debug_stack shows by default and more.
const maxFrameLookup = 64

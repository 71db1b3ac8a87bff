package hangers

import "testing"

// RustLoopTest is a cargo crate whose test tests::spins never leaves a
// loop. The whole spinning function is one line ("SPIN"), so that wherever
// the debugger stops it the line is the same: a debug build puts some of
// the loop's instructions on its variables' lines. It prints "ready" as it
// enters the loop.
func RustLoopTest(t testing.TB) Program {
	t.Helper()
	Need(t, "cargo")
	dir := t.TempDir()
	write(t, dir, map[string]string{
		"Cargo.toml": "[package]\nname = \"spinner\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n",
		"src/lib.rs": rustLoop,
	})
	return Program{Dir: dir, Source: "src/lib.rs"}
}

const rustLoop = `#[rustfmt::skip]
pub fn spin(limit: u64) -> u64 { let mut n: u64 = 0; let mut i: u64 = 0; while i < limit { n = n.wrapping_mul(6364136223846793005).wrapping_add(i); i = i.wrapping_add((n >> 63) & 0); } n } // SPIN

#[cfg(test)]
mod tests {
    use std::io::Write;

    #[test]
    fn spins() {
        // Straight to the descriptor: libtest captures println!.
        std::io::stdout().write_all(b"ready\n").unwrap();
        std::io::stdout().flush().unwrap();
        assert_eq!(super::spin(u64::MAX), 1);
    }
}
`

// RustChanTest is a cargo crate whose test tests::waits blocks on a
// std::sync::mpsc channel nobody sends on ("RECV-FOREVER"): it keeps the
// sender, so the receive never fails. It prints "ready" just before it
// blocks. Only std: it builds offline.
func RustChanTest(t testing.TB) Program {
	t.Helper()
	Need(t, "cargo")
	dir := t.TempDir()
	write(t, dir, map[string]string{
		"Cargo.toml": "[package]\nname = \"waiter\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n",
		"src/lib.rs": rustChan,
	})
	return Program{Dir: dir, Source: "src/lib.rs"}
}

const rustChan = `pub fn wait(rx: &std::sync::mpsc::Receiver<u32>) -> u32 {
    rx.recv().unwrap() // RECV-FOREVER
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    #[test]
    fn waits() {
        let (tx, rx) = std::sync::mpsc::channel::<u32>();
        // Straight to the descriptor: libtest captures println!.
        std::io::stdout().write_all(b"ready\n").unwrap();
        std::io::stdout().flush().unwrap();
        assert_eq!(super::wait(&rx), 1);
        drop(tx);
    }
}
`

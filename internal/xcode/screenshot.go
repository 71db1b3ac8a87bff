package xcode

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/triage-dev/triage/internal/fault"
)

// Screenshot is a simulator's screen taken to a PNG file, and the image to
// attach to an answer.
type Screenshot struct {
	Path          string
	Bytes         int64
	Width, Height int
	// Image is the PNG to attach: the file's, or the file scaled down to
	// ScaledWidth x ScaledHeight to fit the limit; nil when it could not be
	// (ShrinkErr).
	Image                     []byte
	ScaledWidth, ScaledHeight int
	ShrinkErr                 error
}

// TakeScreenshot writes a PNG of the simulator's screen to path (a new file
// under the temporary directory when empty) and reads it back, scaled down
// when it is over limit bytes.
func TakeScreenshot(ctx context.Context, udid, path string, limit int) (*Screenshot, error) {
	path, err := screenshotPath(udid, path)
	if err != nil {
		return nil, err
	}
	if _, err := Run(ctx, ScreenshotCommand(udid, path), 0); err != nil {
		return nil, err
	}
	data, size, err := readScreenshot(path)
	if err != nil {
		return nil, fmt.Errorf("reading the screenshot: %w", err)
	}
	w, h, err := pngSize(data)
	if err != nil {
		return nil, fmt.Errorf("screenshot %s: %w", path, err)
	}
	s := &Screenshot{Path: path, Bytes: size, Width: w, Height: h, Image: data}
	if size > int64(limit) {
		// Too large to send as taken: send it scaled down, or explain.
		s.Image, s.ScaledWidth, s.ScaledHeight, s.ShrinkErr = shrinkPNG(data, limit)
	}
	return s, nil
}

// screenshotPath is where a screenshot goes: path, whose directory must
// exist, or a new file under the temporary directory.
func screenshotPath(udid, path string) (string, error) {
	if path != "" {
		if fi, err := os.Stat(filepath.Dir(path)); err != nil || !fi.IsDir() {
			return "", fault.Usagef("path %q: its directory does not exist", path)
		}
		return path, nil
	}
	dir := filepath.Join(os.TempDir(), "triage-screenshots")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("creating the screenshot directory: %w", err)
	}
	return filepath.Join(dir, fmt.Sprintf("%s-%s.png", udid, time.Now().Format("20060102-150405.000"))), nil
}

// readScreenshot reads a PNG whole when it can be attached to the result
// or shrunk to be, and only its header (enough for pngSize) when it is too
// large even to decode.
func readScreenshot(path string) (data []byte, size int64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	n := fi.Size()
	if n > maxShrinkInput {
		n = 24
	}
	data = make([]byte, n)
	m, err := io.ReadFull(f, data)
	if err != nil && err != io.ErrUnexpectedEOF {
		return nil, 0, err
	}
	return data[:m], fi.Size(), nil
}

var pngSignature = []byte("\x89PNG\r\n\x1a\n")

// pngSize reads a PNG's dimensions from its IHDR chunk.
func pngSize(b []byte) (w, h int, err error) {
	if len(b) < 24 || !bytes.HasPrefix(b, pngSignature) || string(b[12:16]) != "IHDR" {
		return 0, 0, fmt.Errorf("not a PNG image")
	}
	return int(binary.BigEndian.Uint32(b[16:20])), int(binary.BigEndian.Uint32(b[20:24])), nil
}

package simulator

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/workflow/apple"
	"github.com/triage-dev/triage/internal/xcode"
)

type screenshotParams struct {
	apple.SimulatorArgs
	Path string `json:"path,omitempty" jsonschema:"PNG path (default: a temporary file)"`
}

// ScreenshotOutput locates the screenshot.
type ScreenshotOutput struct {
	Path   string `json:"path" jsonschema:"the PNG file"`
	Bytes  int64  `json:"bytes" jsonschema:"its size"`
	Width  int    `json:"width" jsonschema:"pixels"`
	Height int    `json:"height" jsonschema:"pixels"`
}

func (h *handler) screenshot(ctx context.Context, c *catalog.Call, in screenshotParams) (catalog.Result[ScreenshotOutput], error) {
	var zero catalog.Result[ScreenshotOutput]
	d, err := in.Resolve(ctx)
	if err != nil {
		return zero, err
	}
	path := in.Path
	if path == "" {
		dir := filepath.Join(os.TempDir(), "triage-screenshots")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return zero, fmt.Errorf("creating the screenshot directory: %w", err)
		}
		path = filepath.Join(dir, fmt.Sprintf("%s-%s.png", d.UDID, time.Now().Format("20060102-150405.000")))
	} else if fi, err := os.Stat(filepath.Dir(path)); err != nil || !fi.IsDir() {
		return zero, fault.Usagef("path %q: its directory does not exist", path)
	}
	if _, err := xcode.Run(ctx, xcode.ScreenshotCommand(d.UDID, path), 0); err != nil {
		return zero, apple.UsageOf(err)
	}
	data, size, err := readScreenshot(path)
	if err != nil {
		return zero, fmt.Errorf("reading the screenshot: %w", err)
	}
	w, hgt, err := pngSize(data)
	if err != nil {
		return zero, fmt.Errorf("screenshot %s: %w", path, err)
	}
	out := ScreenshotOutput{Path: path, Bytes: size, Width: w, Height: hgt}
	text := fmt.Sprintf("SCREENSHOT of %s: %s (%dx%d, %d bytes)\n", name(d), path, w, hgt, size)
	if size > catalog.MaxImageBytes {
		// Too large to send as taken: send it scaled down, or explain.
		small, sw, sh, err := shrinkPNG(data, catalog.MaxImageBytes)
		if err != nil {
			text += fmt.Sprintf("image not attached: %d bytes is over the %d-byte limit and could not be scaled down (%v); open the file instead\n", size, catalog.MaxImageBytes, err)
			return catalog.Result[ScreenshotOutput]{Text: text, Output: out}, nil
		}
		data = small
		text += fmt.Sprintf("image attached scaled to %dx%d (%d bytes) to fit the %d-byte limit; the file has full resolution\n", sw, sh, len(small), catalog.MaxImageBytes)
	}
	img := catalog.Image{Data: data, MIMEType: "image/png"}
	return catalog.Result[ScreenshotOutput]{Text: text, Output: out, Images: []catalog.Image{img}}, nil
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

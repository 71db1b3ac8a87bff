package simulator

import (
	"context"
	"fmt"

	"github.com/triage-dev/triage/internal/catalog"
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
	d, err := in.Resolve(ctx)
	if err != nil {
		return catalog.Result[ScreenshotOutput]{}, err
	}
	s, err := xcode.TakeScreenshot(ctx, d.UDID, in.Path, catalog.MaxImageBytes)
	if err != nil {
		return catalog.Result[ScreenshotOutput]{}, apple.UsageOf(err)
	}
	out := ScreenshotOutput{Path: s.Path, Bytes: s.Bytes, Width: s.Width, Height: s.Height}
	return catalog.Result[ScreenshotOutput]{Text: screenshotText(d, s), Output: out, Images: screenshotImage(s)}, nil
}

// screenshotText says what was taken and, for one over the image limit,
// what was attached.
func screenshotText(d xcode.Device, s *xcode.Screenshot) string {
	text := fmt.Sprintf("SCREENSHOT of %s: %s (%dx%d, %d bytes)\n", d.Label(), s.Path, s.Width, s.Height, s.Bytes)
	switch {
	case s.ShrinkErr != nil:
		text += fmt.Sprintf("image not attached: %d bytes is over the %d-byte limit and could not be scaled down (%v); open the file instead\n", s.Bytes, catalog.MaxImageBytes, s.ShrinkErr)
	case s.ScaledWidth > 0:
		text += fmt.Sprintf("image attached scaled to %dx%d (%d bytes) to fit the %d-byte limit; the file has full resolution\n", s.ScaledWidth, s.ScaledHeight, len(s.Image), catalog.MaxImageBytes)
	}
	return text
}

func screenshotImage(s *xcode.Screenshot) []catalog.Image {
	if s.Image == nil {
		return nil
	}
	return []catalog.Image{{Data: s.Image, MIMEType: "image/png"}}
}

package catalog

import (
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Image is binary image content of a result.
type Image struct {
	Data     []byte
	MIMEType string // "image/png"
}

// MaxImageBytes bounds one image in a result. Base64 makes it a third
// larger on the wire, and a client passes it to the model whole: a
// full-resolution screenshot of a large display is refused rather than
// sent (the tool's text names the file).
const MaxImageBytes = 4 << 20

// CheckImage says why an image cannot be sent, or returns nil.
func CheckImage(img Image) error {
	switch {
	case len(img.Data) == 0:
		return fmt.Errorf("the image is empty")
	case !strings.HasPrefix(img.MIMEType, "image/"):
		return fmt.Errorf("%q is not an image type", img.MIMEType)
	case len(img.Data) > MaxImageBytes:
		return fmt.Errorf("%d bytes is over the %d-byte limit for an image in a result", len(img.Data), MaxImageBytes)
	}
	return nil
}

// content is a result's text followed by its images; an image CheckImage
// refuses is left out and the text says why, so a handler's oversight
// never sends megabytes to the model.
func content(text string, images []Image) []mcp.Content {
	var notes []string
	var imgs []mcp.Content
	for i, img := range images {
		if err := CheckImage(img); err != nil {
			notes = append(notes, fmt.Sprintf("image %d not attached: %v", i+1, err))
			continue
		}
		imgs = append(imgs, &mcp.ImageContent{Data: img.Data, MIMEType: img.MIMEType})
	}
	if len(notes) > 0 {
		if text != "" && !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		text += strings.Join(notes, "\n") + "\n"
	}
	return append([]mcp.Content{&mcp.TextContent{Text: text}}, imgs...)
}

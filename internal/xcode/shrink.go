package xcode

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
)

// maxShrinkInput bounds a screenshot decoded to be shrunk.
const maxShrinkInput = 64 << 20

// maxHalvings bounds how often shrinkPNG halves an image (to 1/16 of each
// side): a screenshot that is still too large then is refused.
const maxHalvings = 4

// shrinkPNG halves a PNG's width and height (averaging each 2x2 block)
// until it encodes within limit bytes. A simulator screenshot is at the
// screen's pixel scale (3x on an iPhone), so half or a quarter of it
// still shows everything a model can read.
func shrinkPNG(data []byte, limit int) (out []byte, w, h int, err error) {
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, 0, 0, fmt.Errorf("decoding: %w", err)
	}
	for range maxHalvings {
		img = halve(img)
		var buf bytes.Buffer
		if err := png.Encode(&buf, img); err != nil {
			return nil, 0, 0, fmt.Errorf("encoding: %w", err)
		}
		if buf.Len() <= limit {
			b := img.Bounds()
			return buf.Bytes(), b.Dx(), b.Dy(), nil
		}
	}
	return nil, 0, 0, fmt.Errorf("still over %d bytes at 1/%d of its width", limit, 1<<maxHalvings)
}

// halve returns src at half its width and height, each pixel the average
// of a 2x2 block (an odd last row or column is repeated).
func halve(src image.Image) image.Image {
	b := src.Bounds()
	at, ok := src.(image.RGBA64Image) // every decoded PNG; no allocation per pixel
	if !ok {
		at = image.NewRGBA64(b)
		draw.Draw(at.(draw.Image), b, src, b.Min, draw.Src)
	}
	w, h := max(b.Dx()/2, 1), max(b.Dy()/2, 1)
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			var r, g, bl, a uint32
			for dy := range 2 {
				for dx := range 2 {
					c := at.RGBA64At(b.Min.X+min(2*x+dx, b.Dx()-1), b.Min.Y+min(2*y+dy, b.Dy()-1))
					// Premultiplied, so a plain average is right.
					r, g, bl, a = r+uint32(c.R), g+uint32(c.G), bl+uint32(c.B), a+uint32(c.A)
				}
			}
			dst.SetRGBA64(x, y, color.RGBA64{uint16(r / 4), uint16(g / 4), uint16(bl / 4), uint16(a / 4)})
		}
	}
	return dst
}

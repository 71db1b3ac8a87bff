package xcode

import (
	"image"
	"image/color"
	"testing"
)

func TestHalveAverages(t *testing.T) {
	src := image.NewNRGBA(image.Rect(0, 0, 3, 2)) // odd width: the last column repeats
	set := func(x, y int, v uint8) { src.SetNRGBA(x, y, color.NRGBA{v, v, v, 255}) }
	set(0, 0, 0)
	set(1, 0, 100)
	set(0, 1, 200)
	set(1, 1, 100)
	set(2, 0, 40)
	set(2, 1, 40)
	got := halve(src)
	if b := got.Bounds(); b.Dx() != 1 || b.Dy() != 1 {
		t.Fatalf("bounds %v, want 1x1", b)
	}
	if c := color.NRGBAModel.Convert(got.At(0, 0)).(color.NRGBA); c.R != 100 || c.A != 255 {
		t.Errorf("pixel %+v, want the average 100, opaque", c)
	}
	tiny := halve(image.NewNRGBA(image.Rect(0, 0, 1, 1)))
	if b := tiny.Bounds(); b.Dx() != 1 || b.Dy() != 1 {
		t.Errorf("a 1x1 image halves to %v", b)
	}
}

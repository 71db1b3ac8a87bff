//go:build !linux

package hang

func exePath(int) string { return "" }

//go:build !linux

package hang

func exePath(int) string { return "" }

func cmdlinePath(int) string { return "" }

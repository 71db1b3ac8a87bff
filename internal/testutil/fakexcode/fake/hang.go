package main

import (
	"os/signal"
	"syscall"
)

func hangForever(ignoreTerm bool) {
	if ignoreTerm {
		signal.Ignore(syscall.SIGTERM)
	}
	select {}
}

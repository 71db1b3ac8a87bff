package main

import (
	"os/signal"
	"syscall"
	"time"
)

func hangForever(ignoreTerm bool) {
	if ignoreTerm {
		signal.Ignore(syscall.SIGTERM)
	}
	for {
		time.Sleep(time.Hour) // a sleeping goroutine: select{} would be a reported deadlock
	}
}

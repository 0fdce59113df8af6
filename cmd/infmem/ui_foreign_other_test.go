//go:build !unix

package main

import "syscall"

// asNobody has no meaning here: the tests that call it skip on
// systems other than linux before they reach it.
func asNobody() *syscall.SysProcAttr { return nil }

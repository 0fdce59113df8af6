//go:build unix

package main

import "syscall"

// asNobody runs a child process as the unprivileged user nobody (the
// tests that use it run as root on linux only).
func asNobody() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
}

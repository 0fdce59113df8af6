// Package proc answers whether a process is still running, for files named
// after the process that owns them (daemon.json, temporary backup files).
package proc

//go:build !faultpoints

// Package faultpoint lets the fault matrix (cmd/infmem TestFault*) crash a
// real infmem process at a chosen point of a multi-step write, where a
// kill -9 from outside could only land by chance. Ordinary builds have no
// fault points: Crash does nothing and is compiled away. A binary built
// with -tags faultpoints dies by SIGKILL (no deferred function runs,
// nothing is flushed: as a power cut) at the point INFMEM_FAULTPOINT
// names: "name" the first time the point is passed, "name:N" the Nth.
package faultpoint

// Enabled reports whether this build has fault points.
const Enabled = false

// Crash marks a fault point; in this build it does nothing.
func Crash(name string) {}

//go:build !faultpoints

// Package faultpoint lets the fault matrix (cmd/infmem TestFault*) crash a
// real infmem process at a chosen point of a multi-step write, where a
// kill -9 from outside could only land by chance. Ordinary builds have no
// fault points: Crash does nothing and is compiled away. A binary built
// with -tags faultpoints dies by SIGKILL (no deferred function runs,
// nothing is flushed: as a power cut) at the point INFMEM_FAULTPOINT
// names: "name" the first time the point is passed, "name:N" the Nth.
// A point can also hold a process still (Hold): while the file that
// INFMEM_FAULTHOLD ("name=path") names exists, the point waits, so that a
// test can look at a process in the middle of a step (a daemon whose index
// is loading) for as long as it needs.
package faultpoint

// Enabled reports whether this build has fault points.
const Enabled = false

// Crash marks a fault point; in this build it does nothing.
func Crash(name string) {}

// Hold marks a point a test can hold; in this build it does nothing.
func Hold(name string) {}

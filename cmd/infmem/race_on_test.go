//go:build race

package main

// raceEnabled: the tests run under the race detector, so the binary the
// end-to-end tests launch is built with it too.
const raceEnabled = true

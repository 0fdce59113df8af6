//go:build !race

package testenv

// raceEnabled: this binary runs under the race detector.
const raceEnabled = false

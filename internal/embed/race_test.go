//go:build race

package embed

// raceEnabled lets tests without concurrency skip work that the race
// detector slows by two orders of magnitude.
const raceEnabled = true

//go:build race

package vecindex

// raceEnabled lets tests shrink work that the race detector slows by an
// order of magnitude.
const raceEnabled = true

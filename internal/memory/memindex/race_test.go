//go:build race

package memindex

// raceEnabled lets tests skip what the race detector changes (sync.Pool
// drops entries at random under it).
const raceEnabled = true

package memory

import (
	"context"
	"time"

	"github.com/infmem/infmem/internal/memory/profile"
)

// The user's profile is package profile's; the engine serialises its
// updates with its own writes and drops the contacts and time zone it
// keeps for searches and results (ranked.go) when they change.
type (
	// Profile is the user's profile.
	Profile = profile.Profile
	// ProfileUpdate changes parts of the profile; absent parts stay.
	ProfileUpdate = profile.Update
)

var (
	// TimeZoneKeys are the profile preferences that set the user's time
	// zone, time_zone first.
	TimeZoneKeys = profile.TimeZoneKeys
	// LoadZone reads an IANA time zone name; "Local" is refused.
	LoadZone = profile.LoadZone
	// StoreLocation is UserLocation read from a database without an
	// engine (an export the CLI writes itself).
	StoreLocation = profile.StoreLocation
)

// Profile reads the user's profile.
func (e *Engine) Profile(ctx context.Context) (Profile, error) { return profile.Read(ctx, e.store) }

// UpdateProfile applies u and returns the new profile and what changed.
func (e *Engine) UpdateProfile(ctx context.Context, u ProfileUpdate) (Profile, []string, error) {
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	p, changed, err := profile.Apply(ctx, e.store, u, e.now())
	if err == nil && len(changed) > 0 {
		e.people.drop()
	}
	return p, changed, err
}

// UserLocation is the zone the user's dates and time phrases are read in:
// the profile's time_zone preference, else the configured zone. A non-nil
// error says why the profile's zone was not used (the profile could not be
// read, or its zone is not valid); the configured zone is returned then.
// The profile is read at most every peopleTTL (10 s): this engine's own
// profile updates are seen at once, another device's within that time.
func (e *Engine) UserLocation(ctx context.Context) (*time.Location, error) {
	return e.userLocation(ctx)
}

package mongostore

import "context"

// external is a MongoDB the user runs; infmem never starts or stops it.
type external struct{ raw string }

func (e external) uri() string                           { return e.raw }
func (e external) redactedURI() string                   { return RedactURI(e.raw) }
func (e external) prepare(context.Context, string) error { return nil }
func (e external) stop(context.Context) error            { return nil }

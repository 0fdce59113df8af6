package mongostore

import (
	"context"
	"fmt"

	"github.com/infmem/infmem/internal/mongod"
)

// managed is a local mongod that this process supervises.
type managed struct{ sup *mongod.Supervisor }

func startManaged(ctx context.Context, opts Options) (*managed, error) {
	bin, err := mongod.Find(opts.MongodPath)
	if err != nil {
		return nil, err
	}
	sup, err := mongod.New(mongod.Config{Binary: bin, DataRoot: opts.Root.Dir, Logger: opts.Logger})
	if err != nil {
		return nil, err
	}
	if err := sup.Start(ctx); err != nil {
		return nil, fmt.Errorf("cannot start mongod (%s): %w", bin, err)
	}
	return &managed{sup: sup}, nil
}

func (m *managed) uri() string                           { return m.sup.URI() }
func (m *managed) redactedURI() string                   { return m.sup.RedactedURI() }
func (m *managed) prepare(context.Context, string) error { return nil }
func (m *managed) stop(ctx context.Context) error        { return m.sup.Stop(ctx) }

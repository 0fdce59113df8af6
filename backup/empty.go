package backup

import (
	"context"
	"errors"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/mongostore"
	"github.com/infmem/infmem/scopes"
)

// holdsNothing reports whether a database holds nothing a safety backup
// would keep: no memory or summary (forgotten ones included), no scope
// but Global, an empty profile. Restoring into a new data root finds it
// so; a backup of it would only show up as the latest backup.
func holdsNothing(ctx context.Context, store *mongostore.Store) (bool, error) {
	for _, c := range []string{mongostore.ConversationHistory, mongostore.Summaries} {
		n, err := store.Database().Collection(c).CountDocuments(ctx, bson.D{})
		if err != nil || n > 0 {
			return false, err
		}
	}
	defs, err := store.Scopes.List(ctx)
	if err != nil {
		return false, err
	}
	for _, d := range defs {
		if !strings.EqualFold(d.ScopeName, scopes.Global) {
			return false, nil
		}
	}
	p, err := store.Profiles.Get(ctx, mongostore.DefaultUserID)
	if err != nil {
		if errors.Is(err, mongostore.ErrNotFound) {
			return true, nil
		}
		return false, err
	}
	return p.Name == "" && len(p.Preferences) == 0 && len(p.Facts) == 0 && len(p.Contacts) == 0 && len(p.Notes) == 0, nil
}

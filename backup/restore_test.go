package backup

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/mongostore"
)

func TestRoundTripQuick(t *testing.T) {
	env := openTestStore(t)
	populate(t, env.store, 300)
	before := takeSnapshot(t, env.store)
	ctx := context.Background()
	res, err := Create(ctx, env.store, Options{Dir: env.root.BackupsDir(), Encryption: Encryption{Passphrase: mustPassphrase(t, "pw"), ScryptWorkFactor: testWorkFactor}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", res.Manifest)
	c, err := Verify(ctx, res.Path, Keys{Passphrase: mustPassphrase(t, "pw")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", c)
	for _, n := range mongostore.CollectionNames {
		if err := env.store.Database().Collection(n).Drop(ctx); err != nil {
			t.Fatal(err)
		}
	}
	env.store.Database().Collection(mongostore.ConversationHistory).InsertOne(ctx, bson.D{{Key: "x", Value: 1}})
	rr, err := Restore(ctx, env.store, res.Path, RestoreOptions{Keys: Keys{Passphrase: mustPassphrase(t, "pw")}, RunDir: env.root.RunDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", rr)
	after := takeSnapshot(t, env.store)
	if d := before.diff(after); d != "" {
		t.Fatal(d)
	}
}

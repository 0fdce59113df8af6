package mongod

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"
)

// ensureCredential makes sure mongod accepts infmem's credential, and
// remembers it for URI once it does.
func (s *Supervisor) ensureCredential() error {
	if known := s.knownCredential(); known != nil { // a restart: the user is in the data files already
		if err := s.authPing(*known); err != nil {
			return fmt.Errorf("mongod rejected infmem's credential after a restart: %w", err)
		}
		return nil
	}
	cred, err := s.firstCredential()
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.cred = &cred
	s.mu.Unlock()
	return nil
}

// firstCredential checks the saved credential on the supervisor's first
// start, or, when there is none, makes one.
func (s *Supervisor) firstCredential() (credential, error) {
	cred, exists, widened, err := loadCredential(s.credPath)
	if widened {
		s.log.Warn("mongod credential file was readable by others; restricted it to 0600", "path", s.credPath)
	}
	if err != nil {
		return credential{}, err
	}
	if !exists {
		return s.newUser()
	}
	return cred, s.checkSavedCredential(cred)
}

// newUser generates the credential, saves it, then creates the user through
// the localhost exception. Saving first means a crash in between leaves a
// credential whose user is missing, which checkSavedCredential repairs on
// the next start; the reverse order could leave a user nobody knows the
// password of.
func (s *Supervisor) newUser() (credential, error) {
	cred := newCredential()
	if err := saveCredential(s.credPath, cred); err != nil {
		return credential{}, err
	}
	s.log.Info("generated the mongod credential", "path", s.credPath, "user", cred.User)
	if err := s.createUser(cred); err != nil {
		return credential{}, err
	}
	return cred, s.checkCreatedUser(cred)
}

// checkSavedCredential checks that mongod accepts the saved credential, and
// creates its user when it does not.
func (s *Supervisor) checkSavedCredential(cred credential) error {
	err := s.authPing(cred)
	if err == nil {
		return nil
	}
	// Perhaps the previous start saved the credential and died before
	// creating the user; the localhost exception is then still open.
	if cerr := s.createUser(cred); cerr != nil {
		return fmt.Errorf("mongod rejected the credential in %s (%v), and it could not be recreated: %w",
			s.credPath, err, cerr)
	}
	return s.checkCreatedUser(cred)
}

func (s *Supervisor) checkCreatedUser(cred credential) error {
	if err := s.authPing(cred); err != nil {
		return fmt.Errorf("mongod rejected the user it just created: %w", err)
	}
	return nil
}

// createUser creates infmem's admin user through the localhost exception,
// which mongod grants to unauthenticated local clients while no user exists.
// root covers everything infmem does: its databases, backup and restore
// through mongodump/mongorestore, and server status.
func (s *Supervisor) createUser(cred credential) error {
	client, err := mongo.Connect(options.Client().ApplyURI(s.anonURI()).SetServerSelectionTimeout(5 * time.Second))
	if err != nil {
		return fmt.Errorf("connect to create the infmem user: %w", err)
	}
	defer client.Disconnect(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err = client.Database("admin").RunCommand(ctx, bson.D{
		{Key: "createUser", Value: cred.User},
		{Key: "pwd", Value: cred.Password.reveal()},
		{Key: "roles", Value: bson.A{bson.D{{Key: "role", Value: "root"}, {Key: "db", Value: "admin"}}}},
		{Key: "mechanisms", Value: bson.A{"SCRAM-SHA-256"}},
	}).Err()
	if err == nil {
		s.log.Info("created the infmem user in mongod", "user", cred.User)
		return nil
	}
	var ce mongo.CommandError
	if errors.As(err, &ce) && (ce.Code == 13 || ce.Code == 51003) { // Unauthorized, user exists
		return fmt.Errorf("create the infmem user in mongod: %w; the database in %s already has users, "+
			"so the localhost exception is closed; hint: put the user and password of a root user into %s "+
			`as {"user": "...", "password": "..."}, or move mongo_data aside to start with an empty database`,
			scrubString(err, cred.Password.reveal()), s.dbPath, s.credPath)
	}
	return fmt.Errorf("create the infmem user in mongod: %w", scrubString(err, cred.Password.reveal()))
}

// authPing checks that mongod accepts cred.
func (s *Supervisor) authPing(cred credential) error {
	s.mu.Lock()
	uri := s.uriLocked(cred.User, cred.Password.reveal())
	s.mu.Unlock()
	client, err := mongo.Connect(options.Client().ApplyURI(uri).SetServerSelectionTimeout(5 * time.Second))
	if err != nil {
		return fmt.Errorf("connect to mongod: %w", scrubString(err, cred.Password.reveal()))
	}
	defer client.Disconnect(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := client.Ping(ctx, readpref.Primary()); err != nil {
		return fmt.Errorf("authenticated ping: %w", scrubString(err, cred.Password.reveal()))
	}
	return nil
}

// scrubString returns err, or, if its text contains pw, a plain error with
// the password masked. The original is dropped on purpose: unwrapping it
// would bring the password back.
func scrubString(err error, pw string) error {
	if err == nil || pw == "" || !strings.Contains(err.Error(), pw) {
		return err
	}
	return errors.New(strings.ReplaceAll(err.Error(), pw, redacted))
}

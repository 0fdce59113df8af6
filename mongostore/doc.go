// Package mongostore owns the database: it starts or connects to one of the
// engines (embedded FerretDB, a managed mongod, an external MongoDB), creates
// the schema of the claude_memory database, and offers typed access to its
// five collections through mongo-driver v2 using only operations that work on
// both FerretDB and MongoDB.
package mongostore

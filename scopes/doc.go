// Package scopes owns memory scopes: their names and validation, the Global
// scope, active-scope resolution and the scope hierarchy. A scope's parent
// is its parent_scope, or what a slash in its name implies ("Work/Apollo"
// is under "Work"). A search in a scope reads its ancestors (SearchSet);
// reading a scope's contents reads its descendants (Subtree).
package scopes

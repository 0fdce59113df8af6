// Package scopes owns memory scopes: their names and validation, the Global
// scope, active-scope resolution and the scope hierarchy.
package scopes

// Package installer owns installation on the user's machine: the per-user
// login service and the registration of infmem in Claude Desktop's config.
package installer

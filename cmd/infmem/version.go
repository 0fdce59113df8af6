package main

import (
	"context"
	"fmt"

	"github.com/infmem/infmem/internal/version"
)

var versionCommand = command{
	summary: "print the version",
	usage:   "version",
	run: func(ctx context.Context, env *cliEnv, args []string) error {
		fs := newFlagSet("version", env, "version")
		if err := parseFlags(fs, args); err != nil {
			return err
		}
		if fs.NArg() > 0 {
			return usageErrorf("version takes no arguments")
		}
		fmt.Fprintf(env.stdout, "infmem %s\n", version.Long())
		return nil
	},
}

package main

import (
	"context"
	"fmt"
)

func helpCommand() command {
	return command{
		summary: "show help for infmem or one command",
		usage:   "help [command]",
		run:     runHelp,
	}
}

func runHelp(ctx context.Context, env *cliEnv, args []string) error {
	if len(args) == 0 {
		printUsage(env.stdout)
		return nil
	}
	if len(args) > 1 {
		return usageErrorf("help takes at most one command name")
	}
	cmd, ok := commands()[args[0]]
	if !ok {
		return unknownCommand(args[0])
	}
	fmt.Fprintf(env.stdout, "infmem %s: %s\n\n", args[0], cmd.summary)
	// Each command prints its flags when asked for -h.
	env2 := *env
	env2.stderr = env.stdout
	return cmd.run(ctx, &env2, []string{"-h"})
}

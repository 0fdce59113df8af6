package main

import "context"

var restartCommand = command{
	summary: "stop the daemon and start it again, with the current config and this binary",
	usage:   "restart [--wait DURATION] [--config FILE] [--data-dir DIR]",
	run: func(ctx context.Context, env *cliEnv, args []string) error {
		opts, err := parseStartStop("restart", env, args)
		if err != nil {
			return err
		}
		// A config the daemon would refuse is refused here, before the
		// running daemon is stopped.
		if _, _, err := loadConfig(opts.common, env); err != nil {
			return err
		}
		if err := runStop(ctx, opts, env); err != nil {
			return err
		}
		return runStart(ctx, opts, env)
	},
}
